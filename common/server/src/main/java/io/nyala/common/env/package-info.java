/**
 * The only door to the disk for server files: {@link io.nyala.common.env.Env} and its file
 * types, with transparent encryption at rest (AES-CTR, a 64-byte header holding the wrapped
 * per-file key; see {@link io.nyala.common.env.EncryptionHeader}). All sizes and offsets callers
 * see are logical, i.e. after the header. Keys come from {@code io.nyala.common.security}; this
 * package never logs key bytes or file contents, and knows nothing of blocks, tablets or WALs.
 */
package io.nyala.common.env;
