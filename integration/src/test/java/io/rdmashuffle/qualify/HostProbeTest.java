/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.provider.Availability;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host's checks on a machine described by files laid out as the kernel shows them: Soft-RoCE's
 * rxe0 on veth0 (198.18.100.1), as in the guest. Each failure the guest makes happen (a wrong GID
 * index, a memlock limit too low, an MTU mismatch, perftest missing) gives a verdict and advice an
 * operator acts on.
 */
@Timeout(30)
class HostProbeTest {
  @TempDir Path root;

  private final Map<String, String> commands = new HashMap<>();
  private final Map<String, String> failing = new HashMap<>();
  private final List<String> programs =
      new ArrayList<>(List.of("ib_read_bw", "ib_read_lat", "ibv_devinfo"));
  private String registration =
      "on-demand paging (verbs.registration=auto; rxe0 supports RC READ on demand, and its READs"
          + " of on-demand memory return the bytes asked for)";

  @BeforeEach
  void rxe0OnVeth0() throws IOException {
    String port = "sys/class/infiniband/rxe0/ports/1/";
    write(port + "state", "4: ACTIVE");
    write(port + "phys_state", "5: LinkUp");
    write(port + "link_layer", "Ethernet");
    write(port + "gids/0", "fe80:0000:0000:0000:b8f6:e1ff:fe1e:1f2a");
    write(port + "gid_attrs/types/0", "RoCE v2");
    write(port + "gid_attrs/ndevs/0", "veth0");
    write(port + "gids/1", "0000:0000:0000:0000:0000:ffff:c612:6401");
    write(port + "gid_attrs/types/1", "RoCE v2");
    write(port + "gid_attrs/ndevs/1", "veth0");
    write(port + "gids/2", "0000:0000:0000:0000:0000:0000:0000:0000");
    write("sys/class/infiniband/rxe0/parent", "veth0");
    write("sys/class/infiniband/rxe0/fw_ver", "0.0.0");
    write("sys/class/infiniband/rxe0/hca_type", "");
    write("sys/module/rdma_rxe/srcversion", "A1B2C3");
    write("sys/module/rdma_rxe/taint", "OE");
    write("sys/class/net/veth0/mtu", "1500");
    write("proc/sys/kernel/osrelease", "7.3.4+deb13-amd64");
    write("proc/sys/vm/max_map_count", "65530");
    limits("unlimited");
    commands.put(
        "ibv_devinfo -d rxe0 -i 1",
        "hca_id:\trxe0\n\ttransport:\t\t\tInfiniBand (0)\n\t\tport:\t1\n"
            + "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n"
            + "\t\t\tactive_mtu:\t\t1024 (3)\n");
  }

  private void limits(String memlock) throws IOException {
    write(
        "proc/self/limits",
        "Limit                     Soft Limit           Hard Limit           Units\n"
            + "Max open files            1048576              1048576              files\n"
            + "Max locked memory         "
            + memlock
            + "            "
            + memlock
            + "            bytes\n");
  }

  private void write(String path, String text) throws IOException {
    Path p = root.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text + "\n");
  }

  private HostReport probe(Integer gidIndex) {
    Machine machine =
        new Machine() {
          @Override
          public String interfaceOf(InetAddress address) {
            return address.getHostAddress().equals("198.18.100.1") ? "veth0" : "";
          }

          @Override
          public List<InetAddress> addressesOf(String netdev) {
            return List.of();
          }

          @Override
          public String which(String program) {
            return programs.contains(program) ? "/usr/bin/" + program : "";
          }

          @Override
          public Ran run(List<String> command) {
            String c = String.join(" ", command);
            if (failing.containsKey(c)) {
              return new Ran(1, failing.get(c));
            }
            return commands.containsKey(c) ? new Ran(0, commands.get(c)) : new Ran(1, "not found");
          }
        };
    HostProbe probe =
        new HostProbe(
            new Sysfs(root),
            machine,
            conf -> {
              Map<TransportKind, Availability> probes = new EnumMap<>(TransportKind.class);
              probes.put(
                  TransportKind.VERBS,
                  Availability.available(
                      List.of(
                          "native library: bundled native/linux-x86_64/libdisni.so, JNI version 32",
                          "served memory registration on rxe0: " + registration)));
              probes.put(TransportKind.TCP, Availability.available(List.of()));
              return new TransportSelector.Choice(TransportKind.VERBS, probes, "auto: verbs");
            });
    return probe.run("198.18.100.1", RdmaConf.defaults(Qualify.SCHEMA), gidIndex);
  }

  private static Check check(HostReport r, String name) {
    for (Check c : r.checks()) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    throw new AssertionError("no check " + name + " in " + r.checks());
  }

  @Test
  void aSoftRoceHostIsUsableAndTheReportNamesTheGidRdmaCmUses() {
    HostReport r = probe(null);

    assertFalse(r.blocksVerbs(), r.checks().toString());
    assertEquals("198.18.100.1 (rxe0)", r.label());
    assertEquals(Verdict.PASS, check(r, "RDMA device").verdict());
    Check gids = check(r, "GIDs");
    assertEquals(Verdict.PASS, gids.verdict(), gids.toString());
    assertTrue(
        gids.found().contains("it uses index 1: 198.18.100.1 (RoCE v2, veth0)"), gids.found());
    assertTrue(gids.found().contains("index 0: fe80:"), "every GID listed: " + gids.found());
    assertEquals("1", r.facts().get("gid.index"));
    assertEquals(Verdict.PASS, check(r, "on-demand paging").verdict());
    assertEquals(Verdict.PASS, check(r, "transport").verdict());
    assertEquals(Verdict.PASS, check(r, "perftest").verdict());
    Check fw = check(r, "firmware and driver");
    assertTrue(
        fw.found().contains("driver rdma_rxe (srcversion A1B2C3), built out of tree"), fw.found());
  }

  @Test
  void anMtuBelowJumboWarnsWithTheInterfaceToChange() {
    Check mtu = check(probe(null), "MTU");

    assertEquals(Verdict.WARN, mtu.verdict());
    assertEquals("veth0 MTU 1500, rxe0 active MTU 1024", mtu.found());
    assertTrue(mtu.advice().contains("ip link set dev veth0 mtu 9000"), mtu.advice());
  }

  @Test
  void unreadablePfcAndEcnWarnWhatTheFabricNeeds() {
    programs.add("dcb");
    failing.put("dcb pfc show dev veth0", "Operation not supported");

    Check pfc = check(probe(null), "PFC and ECN");

    assertEquals(Verdict.WARN, pfc.verdict());
    assertTrue(pfc.found().contains("not readable (dcb: Operation not supported)"), pfc.found());
    assertTrue(pfc.advice().contains("dcb pfc set dev veth0 prio-pfc 3:on"), pfc.advice());
  }

  @Test
  void aLinkLocalGidIndexFailsAndSaysWhichIndexToUse() {
    HostReport r = probe(0);

    Check given = check(r, "GID index given");
    assertEquals(Verdict.FAIL, given.verdict());
    assertFalse(given.blocksVerbs(), "RDMA-CM, and so rdma-shuffle, does not use it");
    assertTrue(given.found().contains("it is a link-local IPv6 GID"), given.found());
    assertTrue(
        given.advice().startsWith("Use GID index 1 (198.18.100.1, RoCE v2)"), given.advice());
    assertTrue(given.advice().contains("perftest -x 1"), given.advice());
    assertEquals(Verdict.PASS, check(probe(1), "GID index given").verdict());
  }

  @Test
  void aMemlockLimitBelowTheBoundsBlocksVerbsAndSaysWhereToRaiseIt() throws IOException {
    limits("65536");

    HostReport r = probe(null);

    Check memlock = check(r, "memlock");
    assertEquals(Verdict.FAIL, memlock.verdict());
    assertTrue(memlock.blocksVerbs());
    assertTrue(r.blocksVerbs());
    assertTrue(memlock.found().startsWith("memlock 65536 bytes; a process that serves and reads"));
    assertTrue(memlock.advice().contains("LimitMEMLOCK=infinity"), memlock.advice());
  }

  @Test
  void perftestMissingWarnsHowToInstallIt() {
    programs.clear();

    HostReport r = probe(null);

    Check p = check(r, "perftest");
    assertEquals(Verdict.WARN, p.verdict());
    assertTrue(p.advice().contains("apt-get install perftest"), p.advice());
    assertEquals("", r.facts().get("perftest"));
  }

  @Test
  void wrongOnDemandBytesWarnAndSayWhatToDo() {
    registration =
        "pinned (verbs.registration=auto; rxe0 reports RC READ on demand, but its on-demand READs"
            + " return wrong bytes (a READ of 64 bytes at offset 4196 ...))";

    Check odp = check(probe(null), "on-demand paging");

    assertEquals(Verdict.WARN, odp.verdict());
    assertTrue(odp.advice().contains("build-rxe-module.sh"), odp.advice());
    assertTrue(odp.advice().contains("Never set verbs.registration=odp"), odp.advice());
  }

  @Test
  void anAddressNoRdmaDeviceServesBlocksVerbs() {
    HostProbe probe =
        new HostProbe(
            new Sysfs(root),
            new Machine() {
              @Override
              public String interfaceOf(InetAddress address) {
                return "eth0";
              }

              @Override
              public List<InetAddress> addressesOf(String netdev) {
                return List.of();
              }

              @Override
              public String which(String program) {
                return "";
              }

              @Override
              public Ran run(List<String> command) {
                return new Ran(1, "");
              }
            },
            conf -> {
              Map<TransportKind, Availability> probes = new EnumMap<>(TransportKind.class);
              probes.put(TransportKind.VERBS, Availability.unavailable("no", List.of()));
              probes.put(TransportKind.TCP, Availability.available(List.of()));
              return new TransportSelector.Choice(TransportKind.TCP, probes, "auto: tcp");
            });

    HostReport r = probe.run("198.18.0.9", RdmaConf.defaults(Qualify.SCHEMA), null);

    Check dev = check(r, "RDMA device");
    assertTrue(dev.blocksVerbs());
    assertTrue(dev.found().contains("is on eth0, and no RDMA device serves it"), dev.found());
    assertTrue(dev.found().contains("rxe0 port 1 on veth0"), dev.found());
  }

  @Test
  void aHostReportCrossesFromAnAgentToItsDriverUnchanged() throws IOException {
    HostReport r = probe(0);

    HostReport back = HostReport.parse(r.text());

    assertEquals(r, back);
    assertNotNull(back.facts().get("netdev.mtu"));
  }
}
