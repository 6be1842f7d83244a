package io.nyala.client;

/**
 * A table as listed by the master.
 *
 * @param id the table's id
 * @param name the table's name
 * @param numTablets how many tablets it has
 * @param numReplicas how many replicas each tablet has
 */
public record TableInfo(String id, String name, int numTablets, int numReplicas) {}
