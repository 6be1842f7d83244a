/**
 * Block storage seam of the tablet server: the {@link io.nyala.tserver.fs.BlockManager}
 * interface, block ids and metrics. Implementations live in sub-packages ({@code log}); this
 * package owns no files and must not know about tablets.
 */
package io.nyala.tserver.fs;
