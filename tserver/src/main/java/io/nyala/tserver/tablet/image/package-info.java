/**
 * The image a tablet copy moves (docs/architecture.md, "Tablet copy"): {@link
 * io.nyala.tserver.tablet.image.TabletImage} and {@link
 * io.nyala.tserver.tablet.image.TabletImageInstaller} as the contract between source and
 * destination, and their block-based implementations over a store's durable snapshot and
 * superblock. It reads and writes blocks only through the block manager and the superblock
 * only through {@code Env}; it must not touch a store's in-memory state, and it knows nothing of
 * sessions, RPC or Ratis (package {@code copy} and the state machine drive it).
 */
package io.nyala.tserver.tablet.image;
