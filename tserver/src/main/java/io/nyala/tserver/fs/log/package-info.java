/**
 * The log block manager (docs/architecture.md, "Block managers"): blocks packed into per-directory
 * containers ({@code <id>.data} + {@code <id>.metadata}), startup replay (streaming or in-memory)
 * with repair, streaming creation transactions, preallocation and background hole punching. All
 * file access goes through {@code Env}; only {@code fallocate} (hole punching, preallocation) talks
 * to the OS directly, through JNA, because {@code Env} has no such call.
 */
package io.nyala.tserver.fs.log;
