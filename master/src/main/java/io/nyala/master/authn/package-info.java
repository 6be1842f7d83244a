/**
 * The master's side of client authentication (docs/architecture.md, "Who may call what"): the
 * Authenticate RPC's checks and the token signing keys the leader publishes to tablet servers
 * and to its own token check. It must not touch the catalog: the keys are kept through the
 * {@code TokenSigningKeyStore} seam, which {@code master.catalog.CatalogTokenKeys} implements.
 */
package io.nyala.master.authn;
