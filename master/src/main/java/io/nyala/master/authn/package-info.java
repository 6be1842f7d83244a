/**
 * The master's side of client authentication (docs/architecture.md, "Who may call what"): the
 * Authenticate RPC's checks and the token signing keys the leader publishes to tablet servers
 * and to its own token check. It owns no persistent state and must not touch the catalog.
 */
package io.nyala.master.authn;
