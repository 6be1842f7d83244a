/**
 * GetTableLocations: which tablets cover a partition-key range and where their replicas are.
 * {@code TableLocationsLookup} computes answers from the catalog and registry (read-only);
 * {@code TableLocationsCache} serves repeats as their serialized bytes within a byte budget,
 * keyed by the catalog's per-table locations versions; {@code TableLocationsBench} measures
 * both. Must not write the catalog or decide leadership.
 */
package io.nyala.master.locations;
