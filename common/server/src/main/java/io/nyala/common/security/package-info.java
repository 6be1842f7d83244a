/**
 * Keys for encryption at rest: the {@link io.nyala.common.security.KeyProvider} seam (cluster
 * key; a real KMS would implement it), key material, RFC 3394/5649 key wrap, HKDF, the WAL
 * payload sealer and the crypto benchmark. It owns no files except the (not secure) cluster
 * key file of {@link io.nyala.common.security.FileKeyProvider}; file encryption itself lives
 * in {@code io.nyala.common.env}. {@link io.nyala.common.security.OwnerOnlyFiles} guards every
 * secret file (mode 0600), TLS private keys included. Nothing here may log or print key bytes.
 */
package io.nyala.common.security;
