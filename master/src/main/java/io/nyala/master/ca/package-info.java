/**
 * The leader master's certificate authority (docs/architecture.md, "TLS and the internal CA"):
 * the import of an operator's CA from its files. The CA itself is kept in the catalog by
 * {@code master.catalog.CatalogCertAuthority}; this package must not touch the catalog.
 */
package io.nyala.master.ca;
