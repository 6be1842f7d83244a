/**
 * Tablet copy (docs/architecture.md, "Tablet copy"): the leader side's sessions and
 * TabletCopyService, and the client a rebuilt replica uses to pull an image. Owns sessions and
 * transfers only; what an image is belongs to the tablet package ({@code TabletImage},
 * {@code TabletImageInstaller}) and when to copy to the state machine. Must not touch stores or
 * Raft groups directly.
 */
package io.nyala.tserver.copy;
