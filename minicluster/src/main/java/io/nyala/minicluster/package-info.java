/**
 * The minicluster: a whole Nyala cluster in one JVM for local use and tests, and its JUnit 5
 * extension. Owns server lifecycles and addresses; never reaches into server internals beyond
 * handing tests the server objects.
 */
package io.nyala.minicluster;
