/**
 * Evidence of a failed test: whether a closed minicluster's data root and server logs are
 * deleted or kept, decided by the test's outcome ({@code KeepClusterOnFailure}) and carried out
 * by {@code DataRootDisposal}. Works on data roots (paths) only: never depends on the
 * minicluster's own classes or on a server's.
 */
package io.nyala.minicluster.evidence;
