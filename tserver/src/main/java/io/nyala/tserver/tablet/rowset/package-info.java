/**
 * Rowsets: the layers a tablet's row versions live in (in-memory {@link
 * io.nyala.tserver.tablet.rowset.MemLayer}s and immutable block-backed {@link
 * io.nyala.tserver.tablet.rowset.DiskLayer}s), how a rowset stacks them, how they are merged in
 * key order and read under a newer schema. It does not decide when to flush or compact and never
 * writes the superblock; the tablet store does.
 */
package io.nyala.tserver.tablet.rowset;
