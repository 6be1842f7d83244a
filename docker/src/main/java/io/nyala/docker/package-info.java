/**
 * Testcontainers support for users' tests: {@link io.nyala.docker.NyalaCluster}, a cluster of
 * the Nyala image on a Docker network of its own, reachable from the host (docs/docker.md).
 * Speaks to the servers only through the client and their web pages; knows no server classes.
 */
package io.nyala.docker;
