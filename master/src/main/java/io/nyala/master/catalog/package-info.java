/**
 * The Raft-replicated sys catalog (tables, tablets, cluster id) and the DDL on it. Every
 * mutation is one {@code SysCatalogBatchPB} written through Ratis on the leader; the state
 * machine is the only owner of the catalog maps. Must not depend on the master's RPC layer.
 */
package io.nyala.master.catalog;
