package io.nyala.client.authn;

import io.nyala.common.NyalaException;

/**
 * A user name and password the cluster's masters accept ({@code --user_credentials_file}),
 * exchanged once per token for a signed token. Its {@link #toString()} hides the password.
 *
 * @param user the user name
 * @param password the password
 */
public record UserCredentials(String user, String password) {
  /**
   * @throws NyalaException INVALID_ARGUMENT for an empty user name or password
   */
  public UserCredentials {
    if (user == null || user.isEmpty()) {
      throw NyalaException.invalidArgument("credentials: user name is empty");
    }
    if (password == null || password.isEmpty()) {
      throw NyalaException.invalidArgument("credentials of user '%s': password is empty", user);
    }
  }

  @Override
  public String toString() {
    return "UserCredentials[user=" + user + ", password=<hidden>]";
  }
}
