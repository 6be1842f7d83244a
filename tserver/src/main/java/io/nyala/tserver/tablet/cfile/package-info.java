/**
 * The on-disk page format of flushed rowsets: checksummed column pages (plain encoding plus a
 * null bitmap), streamed page by page into a writable block, the sorted key index and the key
 * bloom filter. It knows nothing of MVCC, rowsets or tablets; {@code tablet.rowset} gives the
 * bytes their meaning and decides which blocks they go to.
 */
package io.nyala.tserver.tablet.cfile;
