/**
 * The on-disk page format of flushed rowsets: checksummed column pages (plain encoding plus a
 * null bitmap), the sorted key index and the key bloom filter, each as raw bytes destined for a
 * block. It knows nothing of MVCC, rowsets or tablets; {@code tablet.rowset} gives the bytes
 * their meaning.
 */
package io.nyala.tserver.tablet.cfile;
