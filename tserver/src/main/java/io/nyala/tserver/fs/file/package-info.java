/**
 * The file block manager ({@code --block_manager=file}): one file per block in a hashed
 * directory tree. Simple and slow to start with many blocks; kept as a reference
 * implementation of {@link io.nyala.tserver.fs.BlockManager}. Files only through {@code Env}.
 */
package io.nyala.tserver.fs.file;
