package io.nyala.minicluster;

/** The two kinds of server a minicluster runs. */
public enum ServerRole {
  MASTER("master"),
  TABLET_SERVER("ts");

  private final String prefix;

  ServerRole(String prefix) {
    this.prefix = prefix;
  }

  /** Name prefix of servers of this role: {@code master-1}, {@code ts-1}. */
  public String namePrefix() {
    return prefix;
  }
}
