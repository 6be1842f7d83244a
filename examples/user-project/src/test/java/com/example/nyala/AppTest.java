package com.example.nyala;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.client.RowResult;
import io.nyala.common.HostPort;
import io.nyala.minicluster.NyalaCluster;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Runs the App against an in-process cluster (1 master, 3 tablet servers) of its own. */
@NyalaCluster
class AppTest {
  @Test
  void writesAndScansPeople(NyalaClient client) {
    App.run(HostPort.toString(client.getMasterAddresses()));

    NyalaTable people = client.openTable("people");
    List<String> names = new ArrayList<>();
    for (RowResult row : client.newScannerBuilder(people).build()) {
      names.add(row.getString("name"));
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      expected.add("person-" + i);
    }
    Collections.sort(names);
    Collections.sort(expected);
    assertEquals(expected, names);
  }
}
