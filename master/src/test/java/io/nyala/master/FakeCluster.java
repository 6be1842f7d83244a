package io.nyala.master;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A master with fake tservers registered: for tests of the master's own RPCs. */
final class FakeCluster implements AutoCloseable {
  final MasterFixture m;
  final List<FakeTServer> tservers = new ArrayList<>();

  private FakeCluster(MasterFixture m) {
    this.m = m;
  }

  static FakeCluster start(Path dir, int numTservers) throws Exception {
    FakeCluster c = new FakeCluster(MasterFixture.start(dir));
    for (int i = 0; i < numTservers; i++) {
      FakeTServer ts = new FakeTServer("ts-" + i);
      c.tservers.add(ts);
      ts.register(c.m.stub());
    }
    return c;
  }

  @Override
  public void close() {
    tservers.forEach(FakeTServer::close);
    m.close();
  }
}
