/**
 * Where new replicas go: least-loaded live tservers with a random tie-break. Pure functions of
 * the loads it is given; no registry or catalog access.
 */
package io.nyala.master.placement;
