/** Testcontainers support: a Nyala cluster in Docker for tests that want real containers. */
package io.nyala.docker;
