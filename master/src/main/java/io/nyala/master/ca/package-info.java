/**
 * The leader master's certificate issuing (docs/architecture.md, "TLS and the internal CA"):
 * the IssueCertificate RPC's checks (membership proof, the CA the cluster trusts) and the
 * import of an operator's CA from its files. The CA itself is kept in the catalog by
 * {@code master.catalog.CatalogCertAuthority}; this package reaches it only through a supplier.
 */
package io.nyala.master.ca;
