package io.rdmashuffle.cluster.bench;

import io.rdmashuffle.cluster.net.Rate;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The network-path benchmark's options.
 *
 * @param hosts hosts of the cluster, one Spark Worker and one executor each
 * @param rates link settings in order: a rate per host link, or null for none
 * @param rounds rounds per setting; each runs both sides, alternating which goes first
 * @param bytes bytes the map tasks generate and shuffle
 * @param recordBytes size of one record
 * @param maps map tasks
 * @param reduces reduce tasks
 * @param timeoutSeconds one application at most
 * @param waitClusterSeconds how long to wait while another harness cluster runs here
 * @param out the markdown result file
 */
record NetworkPathOptions(
    int hosts,
    List<Rate> rates,
    int rounds,
    long bytes,
    int recordBytes,
    int maps,
    int reduces,
    long timeoutSeconds,
    long waitClusterSeconds,
    Path out) {

  static final String USAGE =
      """
      usage: bench-network-path [--hosts 2] [--rates 150mbit,none] [--rounds 5] [--bytes 768m]
                                [--record 32k] [--maps 8] [--reduces 8] [--timeout 300]
                                [--wait-cluster 1200] [--out FILE]""";

  static NetworkPathOptions parse(String... args) {
    int hosts = 2;
    List<Rate> rates = new ArrayList<>();
    rates.add(Rate.parse("150mbit"));
    rates.add(null);
    int rounds = 5;
    long bytes = size("768m");
    int record = (int) size("32k");
    int maps = 8;
    int reduces = 8;
    long timeout = 300;
    long waitCluster = 1200;
    Path out = Path.of("integration/results/network-path-" + LocalDate.now() + ".md");
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("-h") || a.equals("--help")) {
        throw new IllegalArgumentException(USAGE);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(a + " needs a value\n" + USAGE);
      }
      String v = args[++i];
      switch (a) {
        case "--hosts" -> hosts = Integer.parseInt(v);
        case "--rates" -> rates = rates(v);
        case "--rounds" -> rounds = Integer.parseInt(v);
        case "--bytes" -> bytes = size(v);
        case "--record" -> record = Math.toIntExact(size(v));
        case "--maps" -> maps = Integer.parseInt(v);
        case "--reduces" -> reduces = Integer.parseInt(v);
        case "--timeout" -> timeout = Long.parseLong(v);
        case "--wait-cluster" -> waitCluster = Long.parseLong(v);
        case "--out" -> out = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
      }
    }
    if (hosts < 2
        || rounds < 1
        || maps < 1
        || reduces < 1
        || record < 8
        || bytes / maps / record < 1) {
      throw new IllegalArgumentException(
          "need at least 2 hosts, 1 round, 1 map and reduce task"
              + " and one record of at least 8 bytes per map task\n"
              + USAGE);
    }
    return new NetworkPathOptions(
        hosts, rates, rounds, bytes, record, maps, reduces, timeout, waitCluster, out);
  }

  /** {@code 300mbit,none}: {@code none} is an unlimited link. */
  static List<Rate> rates(String list) {
    List<Rate> r = new ArrayList<>();
    for (String s : list.split(",")) {
      r.add(s.trim().equalsIgnoreCase("none") ? null : Rate.parse(s));
    }
    return r;
  }

  /** {@code 768m}, {@code 32k}, {@code 1g} (binary units) or a plain number of bytes. */
  static long size(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit =
        switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
          case 'k' -> 1L << 10;
          case 'm' -> 1L << 20;
          case 'g' -> 1L << 30;
          default -> 1;
        };
    String n = unit == 1 ? t : t.substring(0, t.length() - 1);
    if (!n.matches("\\d+")) {
      throw new IllegalArgumentException("size=" + text + ": a number and k, m or g");
    }
    return Math.multiplyExact(Long.parseLong(n), unit);
  }

  /** The records each map task generates. */
  long recordsPerMap() {
    return bytes / maps / recordBytes;
  }

  /** The bytes actually shuffled (whole records). */
  long shuffledBytes() {
    return recordsPerMap() * maps * recordBytes;
  }

  static String label(Rate r) {
    return r == null ? "not rate-limited" : r + " per host link";
  }
}
