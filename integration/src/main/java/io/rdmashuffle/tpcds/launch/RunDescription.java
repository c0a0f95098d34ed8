/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.launch;

import io.rdmashuffle.bench.Machine;
import io.rdmashuffle.tpcds.DatasetLayout;
import io.rdmashuffle.tpcds.QueryCatalog.Query;
import io.rdmashuffle.tpcds.report.AppRun;
import io.rdmashuffle.tpcds.report.RunInfo;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The report's header: what ran, where and how, from the options and the applications. */
final class RunDescription {
  private RunDescription() {}

  static RunInfo of(CompareOptions o, List<Query> queries, List<AppRun> apps, Instant started) {
    Map<String, String> h = new LinkedHashMap<>();
    AppRun any = apps.stream().filter(a -> a.sparkVersion() != null).findFirst().orElse(null);
    h.put("machine", Machine.describe().trim().replace("\n", "; "));
    h.put("Spark", any == null ? "unknown (no application started)" : any.sparkVersion());
    h.put("master", o.master());
    h.put(
        "scale factor",
        DatasetLayout.scaleName(o.scale())
            + " (data "
            + DatasetLayout.dir(o.data(), o.scale())
            + ")");
    h.put(
        "queries",
        queries.size()
            + " from "
            + o.querySets()
            + ("all".equals(o.queries()) ? "" : ": " + o.queries()));
    h.put(
        "rounds",
        o.reps()
            + " timed round(s) per side, sides alternating; "
            + o.warmup()
            + " untimed warm-up run(s) per application; "
            + (o.batch() == 0
                ? "all queries in one application"
                : o.batch() + " queries per application"));
    h.put("stock", o.stock().describe());
    h.put("ours", o.ours().describe());
    h.put("transport", transport(o));
    h.put("settings (both sides)", o.conf().isEmpty() ? "Spark defaults" : o.conf().toString());
    h.put(
        "host-local reads",
        o.conf().getOrDefault("spark.shuffle.readHostLocalDisk", "true (Spark default)")
            + (o.master().startsWith("local")
                ? "; on one machine the stock shuffle reads host-local blocks from disk, never the"
                    + " network"
                : ""));
    h.put("started", started.toString());
    h.put("finished", Instant.now().toString());
    h.put("command", "Tpcds compare " + o.command());
    String title =
        String.format(
            Locale.ROOT,
            "TPC-DS SF%s on %s: stock (%s) vs ours (%s)",
            DatasetLayout.scaleName(o.scale()),
            o.master(),
            shortName(o.stock().shuffleManager()),
            shortName(o.ours().shuffleManager()));
    return new RunInfo(title, h);
  }

  private static String transport(CompareOptions o) {
    if (Side.builtIn(o.ours().shuffleManager())) {
      return "n/a: ours is Spark's own "
          + o.ours().shuffleManager()
          + " shuffle (stock against stock)";
    }
    String t =
        o.ours()
            .conf()
            .getOrDefault(
                "spark.shuffle.rdma.transport", o.conf().get("spark.shuffle.rdma.transport"));
    return t == null ? "plugin default (spark.shuffle.rdma.transport unset)" : t;
  }

  private static String shortName(String cls) {
    return cls.substring(cls.lastIndexOf('.') + 1);
  }
}
