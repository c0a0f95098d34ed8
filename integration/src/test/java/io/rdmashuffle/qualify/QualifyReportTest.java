/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The pieces of qualify that need no device: pair checks, perftest's output, commands, report. */
@Timeout(30)
class QualifyReportTest {
  @TempDir Path dir;

  private static HostReport host(
      String address, String device, String netdev, String mtu, String active) {
    Map<String, String> facts = new LinkedHashMap<>();
    facts.put("device", device);
    facts.put("netdev", netdev);
    facts.put("netdev.mtu", mtu);
    facts.put("active_mtu", active);
    return new HostReport(address, facts, List.of(Check.pass(address, "RDMA device", device)));
  }

  private static PairTests pairs(List<Check> checks) {
    return new PairTests(
        new Remote("local", "bin/rdma-shuffle"),
        new PairTests.Options(List.of("host"), List.of(65536), 10, 10, null, List.of()),
        checks,
        new ArrayList<>());
  }

  @Test
  void anMtuMismatchEndToEndFailsAndNamesTheInterfaceToChange() {
    List<Check> checks = new ArrayList<>();
    HostReport server = host("198.18.100.1", "rxe0", "veth0", "9000", "4096");
    HostReport reader = host("198.18.100.2", "rxe1", "veth1", "1500", "1024");

    pairs(checks).mtu(PairTests.pairName(server, reader), server, reader);

    Check c = checks.get(0);
    assertEquals(Verdict.FAIL, c.verdict());
    assertEquals("198.18.100.2 (rxe1) reads 198.18.100.1 (rxe0)", c.scope());
    assertEquals(
        "198.18.100.1 (rxe0): veth0 MTU 9000, active 4096; 198.18.100.2 (rxe1): veth1 MTU 1500,"
            + " active 1024",
        c.found());
    assertTrue(c.advice().contains("READs above 1024 bytes stall or time out"), c.advice());
    assertTrue(c.advice().contains("ip link set dev veth0 mtu 1500"), c.advice());
  }

  @Test
  void theSameMtuOnBothEndsPasses() {
    List<Check> checks = new ArrayList<>();
    HostReport a = host("198.18.100.1", "rxe0", "veth0", "1500", "1024");
    HostReport b = host("198.18.100.2", "rxe1", "veth1", "1500", "1024");

    pairs(checks).mtu("p", a, b);

    assertEquals(Verdict.PASS, checks.get(0).verdict());
  }

  @Test
  void perftestsResultRowsAreRead() {
    String bw =
        "---------------------------------------------------------------------------------------\n"
            + " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
            + " 65536      100              42.10              41.56                0.000665\n";
    String lat =
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]\n"
            + " 64      1000          40.12          900.00       61.50              70.00\n";

    assertEquals(41.56, Perftest.parse("ib_read_bw", bw, 65536), 1e-9);
    assertEquals(61.50, Perftest.parse("ib_read_lat", lat, 64), 1e-9);
    assertTrue(Double.isNaN(Perftest.parse("ib_read_bw", "Couldn't connect", 65536)));
  }

  @Test
  void aRemoteTemplateGetsTheCommandAsOneQuotedWord() {
    Remote ssh = new Remote("ssh -o BatchMode=yes {host}", "/opt/rdma shuffle/bin/rdma-shuffle");

    assertEquals(
        List.of(
            "ssh",
            "-o",
            "BatchMode=yes",
            "node7",
            "'/opt/rdma shuffle/bin/rdma-shuffle' qualify host --set 'k=it'\\''s'"),
        ssh.qualifyArgv("node7", List.of("host", "--set", "k=it's")));
    assertEquals(
        List.of("/x/bin/rdma-shuffle", "qualify", "host"),
        new Remote("local", "/x/bin/rdma-shuffle").qualifyArgv("h", List.of("host")));
  }

  @Test
  void theReportSaysWhatToDoFirstAndDrawsTheFigures() throws Exception {
    HostReport a = host("198.18.100.1", "rxe0", "veth0", "1500", "1024");
    List<Check> pair =
        List.of(
            Check.fail(
                "198.18.100.2 (rxe1) reads 198.18.100.1 (rxe0)",
                "MTU end to end",
                "different",
                "Set one MTU"));
    Map<String, Double> v = new LinkedHashMap<>();
    v.put("perftest.bw.65536", 40.0);
    v.put("perftest.lat.65536", 100.0);
    v.put("ours.bw.65536", 44.0);
    v.put("ours.lat.65536", 90.0);
    Report.Result r =
        new Report.Result(
            "rdma-shuffle qualify",
            List.of("hosts: 198.18.100.1"),
            List.of(a),
            pair,
            List.of(new PairTests.Figures("rxe1 reads rxe0", v)));

    Report.write(dir, r);

    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("**verbs can be used, but checks failed: 1 failed, 0 to improve"), md);
    assertTrue(md.indexOf("## What to do") < md.indexOf("## Host 198.18.100.1 (rxe0)"), md);
    assertTrue(md.contains("| 64 KiB | 40.00 | 44.00 | 1.10 | 100.00 | 90.00 | 0.90 |"), md);
    String html = Files.readString(dir.resolve("report.html"));
    assertTrue(html.contains("<svg"), "charts inline");
    assertTrue(Files.size(dir.resolve("charts/pair1-bandwidth.png")) > 0);
    assertTrue(r.failed());
  }
}
