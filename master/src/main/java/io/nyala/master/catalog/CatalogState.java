package io.nyala.master.catalog;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysCatalogSnapshotPB;
import io.nyala.common.proto.metadata.SysCertAuthorityPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletKeyRewrapPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.metadata.SysTokenSigningKeyPB;
import io.nyala.common.proto.metadata.SysTokenSigningKeyRewrapPB;
import io.nyala.common.proto.metadata.TableStatePB;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The catalog's contents: tables by id and name, tablets by id and by table (ordered by partition
 * key start), the cluster id and the leader's token signing keys. Not thread-safe:
 * {@link SysCatalogStateMachine} owns it and guards every access with its lock; readers get it
 * only inside {@link SysCatalog#read}.
 */
public final class CatalogState {
  /** Bumped after each change that alters a table's locations; read lock-free by lookups. */
  private final LocationsVersions versions;
  private String clusterId = "";
  private final Map<String, SysTableEntryPB> tablesById = new HashMap<>();
  private final Map<String, String> tableIdByName = new HashMap<>();
  private final Map<String, SysTabletEntryPB> tabletsById = new HashMap<>();
  /** Per table: partition key start → tablet id; starts are unique within a table. */
  private final Map<String, NavigableMap<ByteString, String>> tabletsByTable = new HashMap<>();
  /**
   * Tombstones of dropped tables and tablets (docs/data-safety.md): what lets the master delete
   * a replica positively. Out of every listing and name index, so a new table may take the name.
   */
  private final Map<String, SysTableEntryPB> removedTables = new HashMap<>();
  private final Map<String, SysTabletEntryPB> deletedTablets = new HashMap<>();
  /** Token signing keys by seq (docs/architecture.md, "Client tokens"); private halves wrapped. */
  private final NavigableMap<Long, SysTokenSigningKeyPB> tokenSigningKeys = new TreeMap<>();
  /** The internal CA (docs/architecture.md, "TLS and the internal CA"); key wrapped; or null. */
  private SysCertAuthorityPB certAuthority;

  public CatalogState() {
    this(new LocationsVersions());
  }

  CatalogState(LocationsVersions versions) {
    this.versions = versions;
  }

  void apply(SysCatalogOpPB op) {
    switch (op.getOpCase()) {
      case PUT_TABLE -> putTable(op.getPutTable());
      case DELETE_TABLE_ID -> deleteTable(op.getDeleteTableId());
      case PUT_TABLET -> putTablet(op.getPutTablet());
      case DELETE_TABLET_ID -> deleteTablet(op.getDeleteTabletId());
      case SET_CLUSTER_ID -> setClusterId(op.getSetClusterId());
      case PUT_TOKEN_SIGNING_KEY -> tokenSigningKeys.put(op.getPutTokenSigningKey().getSeq(),
          op.getPutTokenSigningKey());
      case DELETE_TOKEN_SIGNING_KEY_SEQ -> tokenSigningKeys.remove(
          op.getDeleteTokenSigningKeySeq());
      case PUT_CERT_AUTHORITY -> putCertAuthority(op.getPutCertAuthority());
      case REWRAP_TABLET_KEY -> rewrapTabletKey(op.getRewrapTabletKey());
      case REWRAP_TOKEN_SIGNING_KEY -> rewrapTokenSigningKey(op.getRewrapTokenSigningKey());
      default -> { } // an op from a newer master: nothing this version understands
    }
  }

  /**
   * The first cluster id replicated wins: a new leader whose barrier write (which carries a
   * fresh id while none is set) is retried may get two of them committed.
   */
  private void setClusterId(String id) {
    if (clusterId.isEmpty()) {
      clusterId = id;
    }
  }

  /**
   * The first CA committed wins, so two leaders that each made one (or a retried barrier) agree
   * on one; an imported CA replaces whatever is stored (the operator asked for it), and so does
   * the same certificate wrapped again.
   */
  private void putCertAuthority(SysCertAuthorityPB ca) {
    if (certAuthority == null || ca.getImported()
        || certAuthority.getCertificateDer().equals(ca.getCertificateDer())) {
      certAuthority = ca;
    }
  }

  private void putTable(SysTableEntryPB t) {
    SysTableEntryPB old = tablesById.put(t.getTableId(), t);
    if (old != null && !old.getName().equals(t.getName())) {
      tableIdByName.remove(old.getName());
    }
    tableIdByName.put(t.getName(), t.getTableId());
    tabletsByTable.computeIfAbsent(t.getTableId(), k -> new TreeMap<>(
        ByteString.unsignedLexicographicalComparator()));
    versions.tablePut(t.getTableId(), t.getName(), old == null ? null : old.getName());
  }

  private void deleteTable(String tableId) {
    SysTableEntryPB old = tablesById.remove(tableId);
    if (old != null) {
      tableIdByName.remove(old.getName());
      versions.tableDeleted(tableId, old.getName());
      removedTables.put(tableId, old.toBuilder().setState(TableStatePB.TABLE_REMOVED).build());
    }
    NavigableMap<ByteString, String> tablets = tabletsByTable.remove(tableId);
    if (tablets != null) {
      tablets.values().forEach(id -> tombstone(tabletsById.remove(id)));
    }
  }

  private void tombstone(SysTabletEntryPB t) {
    if (t != null) {
      deletedTablets.put(t.getTabletId(), keyless(
          t.toBuilder().setState(SysTabletStatePB.SYS_TABLET_DELETED).build()));
    }
  }

  /**
   * A tombstone without the dropped tablet's data key: nothing ever opens it again, and a key
   * kept there would pin its cluster key version forever (docs/encryption.md, "Rotating the
   * cluster key").
   */
  private static SysTabletEntryPB keyless(SysTabletEntryPB t) {
    if (t.getWrappedTabletKey().isEmpty()) {
      return t;
    }
    return t.toBuilder().clearWrappedTabletKey().clearTabletKeyVersion().build();
  }

  /** Applies a rewrap unless the tablet is gone or its key is no longer under from_version. */
  private void rewrapTabletKey(SysTabletKeyRewrapPB r) {
    SysTabletEntryPB t = tabletsById.get(r.getTabletId());
    if (t == null || t.getWrappedTabletKey().isEmpty()
        || t.getTabletKeyVersion() != r.getFromVersion()) {
      return;
    }
    tabletsById.put(t.getTabletId(), t.toBuilder()
        .setWrappedTabletKey(r.getWrappedTabletKey())
        .setTabletKeyVersion(r.getTabletKeyVersion()).build());
  }

  /** Applies a rewrap unless the key expired and left, or is no longer under from_version. */
  private void rewrapTokenSigningKey(SysTokenSigningKeyRewrapPB r) {
    SysTokenSigningKeyPB k = tokenSigningKeys.get(r.getSeq());
    if (k == null || k.getPrivateKeyVersion() != r.getFromVersion()) {
      return;
    }
    tokenSigningKeys.put(r.getSeq(), k.toBuilder()
        .setWrappedPrivateKey(r.getWrappedPrivateKey())
        .setPrivateKeyVersion(r.getPrivateKeyVersion()).build());
  }

  private void putTablet(SysTabletEntryPB t) {
    NavigableMap<ByteString, String> byStart = tabletsByTable.get(t.getTableId());
    if (byStart == null) {
      // The table was deleted by an earlier entry (e.g. a RUNNING update racing a DeleteTable):
      // resurrecting its tablet would leak it, and every replica applies this same rule.
      return;
    }
    SysTabletEntryPB old = tabletsById.get(t.getTabletId());
    if (old != null && !old.getWrappedTabletKey().isEmpty()
        && old.getTabletKeyVersion() > t.getTabletKeyVersion()) {
      // A put made from a copy read before its key was re-wrapped: the data key is the same,
      // keep its newer wrap (a rotation must not be undone by a state change).
      t = t.toBuilder().setWrappedTabletKey(old.getWrappedTabletKey())
          .setTabletKeyVersion(old.getTabletKeyVersion()).build();
    }
    tabletsById.put(t.getTabletId(), t);
    byStart.put(t.getPartition().getPartitionKeyStart(), t.getTabletId());
    versions.bump(t.getTableId());
  }

  private void deleteTablet(String tabletId) {
    SysTabletEntryPB old = tabletsById.remove(tabletId);
    if (old != null) {
      tombstone(old);
      NavigableMap<ByteString, String> byStart = tabletsByTable.get(old.getTableId());
      if (byStart != null) {
        byStart.remove(old.getPartition().getPartitionKeyStart(), tabletId);
      }
      versions.bump(old.getTableId());
    }
  }

  /** A tablet's leader changed outside the catalog (a report): its table's locations did too. */
  void bumpLocationsOfTablet(String tabletId) {
    SysTabletEntryPB t = tabletsById.get(tabletId);
    if (t != null) {
      versions.bump(t.getTableId());
    }
  }

  public String clusterId() {
    return clusterId;
  }

  public SysTableEntryPB tableById(String id) {
    return tablesById.get(id);
  }

  public SysTableEntryPB tableByName(String name) {
    String id = tableIdByName.get(name);
    return id == null ? null : tablesById.get(id);
  }

  public Collection<SysTableEntryPB> tables() {
    return Collections.unmodifiableCollection(tablesById.values());
  }

  public SysTabletEntryPB tablet(String id) {
    return tabletsById.get(id);
  }

  public Collection<SysTabletEntryPB> tablets() {
    return Collections.unmodifiableCollection(tabletsById.values());
  }

  /** The token signing keys, oldest (lowest seq) first; their private halves wrapped. */
  public Collection<SysTokenSigningKeyPB> tokenSigningKeys() {
    return Collections.unmodifiableCollection(tokenSigningKeys.values());
  }

  /** The public key (DER) of the stored token signing key {@code seq}, or null. */
  public ByteString tokenSigningKey(long seq) {
    SysTokenSigningKeyPB k = tokenSigningKeys.get(seq);
    return k == null ? null : k.getPublicKeyDer();
  }

  /** The internal CA, its private key wrapped; null before the first leader made one. */
  public SysCertAuthorityPB certAuthority() {
    return certAuthority;
  }

  /** The tombstones of dropped tables. */
  public Collection<SysTableEntryPB> removedTables() {
    return Collections.unmodifiableCollection(removedTables.values());
  }

  /** The tombstone of a dropped table (state TABLE_REMOVED), or null. */
  public SysTableEntryPB removedTable(String id) {
    return removedTables.get(id);
  }

  /** The tombstone of a dropped tablet (state SYS_TABLET_DELETED), or null. */
  public SysTabletEntryPB deletedTablet(String id) {
    return deletedTablets.get(id);
  }

  /** A table's tablets keyed by partition key start, in partition key order. */
  public NavigableMap<ByteString, String> tabletIdsOf(String tableId) {
    NavigableMap<ByteString, String> m = tabletsByTable.get(tableId);
    return m == null ? Collections.emptyNavigableMap() : Collections.unmodifiableNavigableMap(m);
  }

  /** A table's tablets in partition key order. */
  public List<SysTabletEntryPB> tabletsOf(String tableId) {
    return tabletIdsOf(tableId).values().stream().map(tabletsById::get).toList();
  }

  SysCatalogSnapshotPB toSnapshot(long term, long index) {
    SysCatalogSnapshotPB.Builder b = SysCatalogSnapshotPB.newBuilder();
    if (certAuthority != null) {
      b.setCertAuthority(certAuthority);
    }
    return b
        .setClusterId(clusterId)
        .addAllTables(tablesById.values())
        .addAllTablets(tabletsById.values())
        .addAllRemovedTables(removedTables.values())
        .addAllDeletedTablets(deletedTablets.values())
        .addAllTokenSigningKeys(tokenSigningKeys.values())
        .setLastAppliedTerm(term)
        .setLastAppliedIndex(index)
        .build();
  }

  static CatalogState fromSnapshot(SysCatalogSnapshotPB pb) {
    return fromSnapshot(pb, new LocationsVersions());
  }

  /** A state from a snapshot; {@code versions} restarts from it (old entries never match). */
  static CatalogState fromSnapshot(SysCatalogSnapshotPB pb, LocationsVersions versions) {
    versions.clear();
    CatalogState s = new CatalogState(versions);
    s.clusterId = pb.getClusterId();
    pb.getTablesList().forEach(s::putTable);
    pb.getTabletsList().forEach(s::putTablet);
    pb.getRemovedTablesList().forEach(t -> s.removedTables.put(t.getTableId(), t));
    pb.getDeletedTabletsList().forEach(t -> s.deletedTablets.put(t.getTabletId(), keyless(t)));
    pb.getTokenSigningKeysList().forEach(k -> s.tokenSigningKeys.put(k.getSeq(), k));
    s.certAuthority = pb.hasCertAuthority() ? pb.getCertAuthority() : null;
    return s;
  }
}
