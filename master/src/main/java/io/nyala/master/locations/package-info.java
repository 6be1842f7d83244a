/**
 * GetTableLocations: which tablets cover a partition-key range and where their replicas are.
 * Read-only over the catalog and registry; the lookup is one class so a cache can wrap it.
 */
package io.nyala.master.locations;
