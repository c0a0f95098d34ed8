/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import io.rdmashuffle.config.ConfigException;
import io.rdmashuffle.config.ConfigSchema;
import io.rdmashuffle.config.ConfigSource;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * {@code bin/rdma-shuffle qualify}: a cluster's first hour with RDMA in one command ({@link
 * RunStep}). Checks every host of {@code --hosts} ({@link HostProbe}), then every pair (the later
 * host reads from the earlier one: {@link PairTests}), and writes one report ({@link Report}); exit
 * status 0 when no check failed, 1 when one did (the report says whether verbs can be used at all),
 * 2 on a mistake in the command line. The hosts' own steps ({@code host}, {@code read-server},
 * {@code read-client}) are this command too, run on each host by {@code --remote}.
 */
public final class Qualify {
  static final String USAGE =
      """
      usage: bin/rdma-shuffle qualify [--hosts ADDRESS,...] [--remote local|'ssh ... {host}']
                 [--gid-index N] [--tests host,perftest,read] [--sizes 4k,64k,1m]
                 [--iterations 1000] [--timeout 120] [--conf spark-defaults.conf]
                 [--set key=value]... [--out DIR]
                 [--spark-master URL --spark-home DIR [--spark-bytes 256m] [--spark-executors N]]
        Checks RDMA on each host and between each pair of hosts and writes one report (report.md,
        report.html with charts) with a verdict per check and the setting to change. Per host, for
        the address its transport binds: RDMA device and port, link layer, GIDs (the RoCE version
        of each, and the one RDMA-CM uses), MTU, memlock, vm.max_map_count and open files against
        the configured bounds, firmware and driver, PFC and ECN where readable, our native library
        and DiSNI, on-demand paging (whether the device's on-demand READs return the right bytes),
        the transport auto picks, perftest. Per pair (the later host reads from the earlier one):
        MTU end to end, perftest's ib_read_bw and ib_read_lat, rdma-shuffle's own READs (bytes
        checked, then bandwidth and latency).
        --hosts      the addresses the transport binds on each host (default: this host's)
        --remote     how to run a host's steps: local (every host is an address of this machine)
                     or a command with {host}, e.g. 'ssh -o BatchMode=yes {host}'; bin/rdma-shuffle
                     must be at the same path on every host (default: local)
        --gid-index  the GID index your other RDMA tools use (perftest -x, NCCL_IB_GID_INDEX):
                     checked against RDMA-CM's, and perftest runs with it instead of RDMA-CM
        --tests      which steps run: host, perftest, read, spark (default host,perftest,read, and
                     spark with --spark-master)
        --sizes      READ sizes for perftest and ours; --iterations READs per size and test
        --timeout    seconds a step may take (default 120)
        --conf, --set  settings as the doctor reads them (the bounds checked, verbs.registration)
        --out        the report's folder (default qualify-DATE-TIME)
        --spark-master  a small Spark shuffle (--spark-bytes of 1 KiB records over
                     --spark-executors executors, default 2) on the stock shuffle and on ours
                     (verbs, the --set settings): equal results, times side by side; --spark-home
                     holds bin/spark-submit or jars/; the plugin jar must be at the same path on
                     every node (its extraClassPath)
        Exit status 0 when no check failed, 1 when one did, 2 on a wrong argument.
      """;

  private Qualify() {}

  public static void main(String[] args) {
    Cli.main("qualify", USAGE, args, Qualify::run);
  }

  static int run(Cli a) throws Exception {
    return run(a, System.out);
  }

  /** Everything the command line can say, read before the step (options first, then words). */
  record Args(
      List<String> settings,
      Map<String, String> values,
      RdmaConf conf,
      Integer gidIndex,
      String sparkMaster,
      String sparkHome,
      long sparkBytes,
      int sparkExecutors,
      String address,
      String secret,
      String server,
      String region,
      String hosts,
      String remote,
      List<String> tests,
      List<Integer> sizes,
      int iterations,
      long timeout,
      Path out) {}

  static int run(Cli a, PrintStream out) throws Exception {
    List<String> settings = new ArrayList<>();
    for (String kv : a.all("set")) {
      if (kv.indexOf('=') <= 0) {
        throw new Cli.UsageError("--set expects key=value, got " + kv);
      }
      settings.addAll(List.of("--set", kv));
    }
    String confFile = a.option("conf", null);
    if (confFile != null) {
      settings.addAll(List.of("--conf", confFile));
    }
    Map<String, String> values = values(confFile, settings);
    RdmaConf conf;
    try {
      conf = RdmaConf.load(SCHEMA, ConfigSource.of(values));
    } catch (ConfigException e) {
      throw new Cli.UsageError("bad setting: " + e.getMessage());
    }
    Args args =
        new Args(
            settings,
            values,
            conf,
            a.option("gid-index", null, Integer::valueOf),
            a.option("spark-master", null),
            a.option("spark-home", null),
            a.option("spark-bytes", 256L << 20, Cli::bytes),
            a.intOption("spark-executors", 2),
            a.option("address", null),
            a.option("secret", null),
            a.option("server", null),
            a.option("region", null),
            a.option("hosts", null),
            a.option("remote", Remote.LOCAL),
            a.option("tests", null, Qualify::tests),
            a.option("sizes", List.of(4096, 65536, 1 << 20), Qualify::sizes),
            a.intOption("iterations", 1000),
            a.option("timeout", 120L, Long::valueOf),
            a.option(
                "out",
                Path.of(
                    "qualify-"
                        + LocalDateTime.now()
                            .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))),
                Path::of));
    String step = a.positional("step", "run");
    a.done();
    if (args.iterations() < 1 || args.timeout() < 1) {
      throw new Cli.UsageError("--iterations and --timeout must be at least 1");
    }
    return switch (step) {
      case "run" -> new RunStep(args).run(out);
      case "host" -> {
        out.print(HostProbe.local().run(args.address(), conf, args.gidIndex()).text());
        yield 0;
      }
      case "read-server" -> {
        require(args.address(), "--address");
        require(args.secret(), "--secret");
        yield ReadAgent.serve(
            ReadAgent.conf(values, args.timeout()), args.address(), args.secret(), out);
      }
      case "read-client" -> readClient(args, out);
      default ->
          throw new Cli.UsageError(
              "unknown step " + step + " (run, host, read-server, read-client)");
    };
  }

  private static int readClient(Args args, PrintStream out) {
    require(args.address(), "--address");
    require(args.secret(), "--secret");
    require(args.server(), "--server");
    require(args.region(), "--region");
    try {
      String[] r = args.region().split(":");
      int colon = args.server().lastIndexOf(':');
      return ReadAgent.read(
          ReadAgent.conf(args.values(), args.timeout()),
          args.address(),
          args.secret(),
          new PeerAddress(
              args.server().substring(0, colon),
              Integer.parseInt(args.server().substring(colon + 1))),
          Long.parseLong(r[0]),
          Integer.parseInt(r[1]),
          Integer.parseInt(r[2]),
          args.sizes(),
          args.iterations(),
          out);
    } catch (Exception e) {
      out.println("error=" + e);
      return 1;
    }
  }

  private static List<String> tests(String v) {
    List<String> t = Arrays.stream(v.split(",")).map(String::trim).toList();
    for (String s : t) {
      if (!List.of("host", "perftest", "read", "spark").contains(s)) {
        throw new Cli.UsageError(s + ": not one of host, perftest, read, spark");
      }
    }
    return t;
  }

  static List<Integer> sizes(String text) {
    List<Integer> out = new ArrayList<>();
    for (String s : text.split(",")) {
      long v = Cli.bytes(s);
      if (v < 1 || v > (64 << 20)) {
        throw new Cli.UsageError(s + ": a size from 1 byte to 64m");
      }
      out.add((int) v);
    }
    return out;
  }

  private static void require(String value, String option) {
    if (value == null) {
      throw new Cli.UsageError("missing " + option);
    }
  }

  /** Settings as the doctor reads them: a spark-defaults.conf, then --set; ours only. */
  static Map<String, String> values(String file, List<String> setArgs) {
    Map<String, String> m = new TreeMap<>();
    if (file != null) {
      try (Reader r = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
        Properties p = new Properties();
        p.load(r);
        p.stringPropertyNames().forEach(k -> m.put(k.trim(), p.getProperty(k).trim()));
      } catch (IOException e) {
        throw new Cli.UsageError("--conf " + file + ": " + e.getMessage());
      }
    }
    for (int i = 0; i + 1 < setArgs.size(); i += 2) {
      if (setArgs.get(i).equals("--set")) {
        String kv = setArgs.get(i + 1);
        m.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      }
    }
    m.keySet().removeIf(k -> !k.startsWith(SCHEMA.prefix()));
    return m;
  }

  static final ConfigSchema SCHEMA = ConfigSchema.core("qualify", "spark.shuffle.rdma.");
}
