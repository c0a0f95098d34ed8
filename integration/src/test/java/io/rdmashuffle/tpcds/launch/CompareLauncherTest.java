/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.tpcds.QueryCatalog;
import io.rdmashuffle.tpcds.QueryCatalog.Query;
import io.rdmashuffle.tpcds.launch.CompareLauncher.AppSpec;
import io.rdmashuffle.tpcds.report.QueryRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompareLauncherTest {
  private static final List<Query> FIVE = QueryCatalog.select("tpcds", "q1,q2,q3,q4,q5");

  @Test
  void sidesAlternateSlotBySlotSoNeitherAlwaysGoesFirst() {
    List<AppSpec> plan = CompareLauncher.plan(FIVE, 3, 0, "stock", "ours");
    assertEquals(
        List.of(
            "stock-r1-b1", "ours-r1-b1", "ours-r2-b1", "stock-r2-b1", "stock-r3-b1", "ours-r3-b1"),
        plan.stream().map(AppSpec::label).toList());
    assertEquals(5, plan.get(0).queries().size());
  }

  @Test
  void batchesSplitTheQueriesAndEveryBatchRunsOnBothSidesEachRound() {
    List<AppSpec> plan = CompareLauncher.plan(FIVE, 1, 2, "stock", "ours");
    assertEquals(
        List.of(
            "stock-r1-b1", "ours-r1-b1", "ours-r1-b2", "stock-r1-b2", "stock-r1-b3", "ours-r1-b3"),
        plan.stream().map(AppSpec::label).toList());
    assertEquals(List.of("q5"), plan.get(5).queries().stream().map(Query::id).toList());
  }

  @Test
  void optionsHaveDefaultsForThisMachineAndRejectUnknownOnes() throws Exception {
    CompareOptions o =
        CompareOptions.parse(
            new String[] {
              "--scale",
              "0.1",
              "--ours-class",
              "sort",
              "--app-jar",
              "app.jar",
              "--conf",
              "spark.sql.shuffle.partitions=8"
            },
            0);
    assertEquals("local-cluster[2,1,2048]", o.master());
    assertEquals(3, o.reps());
    assertEquals(Optional.empty(), o.ours().jar());
    assertEquals("8", o.conf().get("spark.sql.shuffle.partitions"));
    assertEquals("1536m", o.conf().get("spark.executor.memory"), "3/4 of a local-cluster worker");
    assertEquals(
        "4g",
        CompareOptions.localClusterDefaults(
                "local-cluster[2,1,2048]", Map.of("spark.executor.memory", "4g"))
            .get("spark.executor.memory"));
    assertEquals(Map.of(), CompareOptions.localClusterDefaults("yarn", Map.of()));
    assertTrue(o.results().startsWith("file:"), o.results());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CompareOptions.parse(new String[] {"--ours-class", "sort", "--rep", "3"}, 0));
    assertTrue(e.getMessage().contains("--rep"), e.getMessage());
  }

  @Test
  void thePluginNeedsItsJar(@TempDir Path dir) throws Exception {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                Side.of(
                    "ours", Side.RDMA_MANAGER, dir + "/rdma-shuffle-spark_2.13-*.jar", Map.of()));
    assertTrue(e.getMessage().contains("--ours-class sort"), e.getMessage());
    Files.createFile(dir.resolve("rdma-shuffle-spark_2.13-0.1.0-sources.jar"));
    Files.createFile(dir.resolve("original-rdma-shuffle-spark_2.13-0.1.0.jar"));
    Path jar = Files.createFile(dir.resolve("rdma-shuffle-spark_2.13-0.1.0.jar"));
    Side ours =
        Side.of(
            "ours",
            Side.RDMA_MANAGER,
            dir + "/rdma-shuffle-spark_2.13-*.jar",
            Map.of("spark.shuffle.rdma.transport", "tcp"));
    assertEquals(Optional.of(jar.toAbsolutePath().normalize()), ours.jar());
    Map<String, String> conf = ours.sparkConf(Map.of("spark.executor.extraClassPath", "/x.jar"));
    assertEquals(Side.RDMA_MANAGER, conf.get("spark.shuffle.manager"));
    assertEquals("/x.jar:" + ours.jar().get(), conf.get("spark.executor.extraClassPath"));
    assertEquals(ours.jar().get().toString(), conf.get("spark.driver.extraClassPath"));
    assertEquals("tcp", conf.get("spark.shuffle.rdma.transport"));
  }

  @Test
  void withoutADistributionTheSparkSubmitMainRunsOnTheSparkHomesJars(@TempDir Path home)
      throws Exception {
    Files.createDirectories(home.resolve("jars"));
    Files.createDirectories(home.resolve("conf"));
    SubmitCommand c =
        new SubmitCommand(
            home, null, "local-cluster[2,1,2048]", "2g", List.of("--verbose"), Path.of("/app.jar"));
    assertTrue(c.direct());
    ProcessBuilder pb =
        c.build(
            "tpcds-ours-r1-b1",
            Map.of("spark.shuffle.manager", "x.Manager", "spark.driver.extraClassPath", "/p.jar"),
            List.of(Path.of("/p.jar")),
            List.of("run", "--app", "a"));
    List<String> cmd = pb.command();
    assertTrue(cmd.contains("-Xmx2g"));
    assertTrue(
        cmd.contains("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"), "Java 17 module options");
    assertTrue(
        cmd.get(cmd.indexOf("-cp") + 1).endsWith("jars/*:/p.jar"),
        "the plugin is on the driver's class path");
    assertEquals("org.apache.spark.deploy.SparkSubmit", cmd.get(cmd.indexOf("-cp") + 2));
    assertTrue(cmd.contains("spark.shuffle.manager=x.Manager"));
    assertEquals("/p.jar", cmd.get(cmd.indexOf("--jars") + 1));
    assertEquals(
        List.of("--verbose", "/app.jar", "run", "--app", "a"),
        cmd.subList(cmd.size() - 5, cmd.size()));
    assertEquals(home.toString(), pb.environment().get("SPARK_HOME"));
    assertEquals("127.0.0.1", pb.environment().get("SPARK_LOCAL_IP"));
  }

  @Test
  void aDistributionsSparkSubmitIsUsedWhenThere(@TempDir Path home) throws Exception {
    Path script = Files.createDirectories(home.resolve("bin")).resolve("spark-submit");
    Files.writeString(script, "#!/bin/sh\n");
    assertTrue(script.toFile().setExecutable(true));
    SubmitCommand c = new SubmitCommand(home, null, "yarn", "4g", List.of(), Path.of("/app.jar"));
    assertFalse(c.direct());
    List<String> cmd = c.build("n", Map.of(), List.of(), List.of("run")).command();
    assertEquals(
        List.of(script.toString(), "--driver-memory", "4g", "--master", "yarn"), cmd.subList(0, 5));
    assertFalse(cmd.contains("--jars"));
  }

  @Test
  void progressEstimatesTheTimeLeftFromWhatRanAlready() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<Progress.Unit> units =
        List.of(
            new Progress.Unit("stock-r1-b1", "q1"),
            new Progress.Unit("stock-r1-b1", "q2"),
            new Progress.Unit("ours-r1-b1", "q1"),
            new Progress.Unit("ours-r1-b1", "q2"));
    Progress p = new Progress(units, 2, new PrintStream(bytes, true, StandardCharsets.UTF_8), 0);
    p.appStarted();
    p.done(run("q1", 10_000), 12_000_000_000L);
    p.done(run("q2", 30_000), 45_000_000_000L);
    p.appEnded(50, 40);
    // ours still to run q1 (10 s) and q2 (30 s), plus one application start (10 s)
    assertEquals(50, p.secondsLeft(), 1e-9);
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(
        out.contains(
            "[2/4] stock-r1-b1          q2             30.0 s  ok    | elapsed 0:00:45, left ~0:00:40"),
        out);
    assertEquals("1:01:01", Progress.clock(3661));
  }

  private static QueryRun run(String q, long millis) {
    return new QueryRun(
        "stock",
        1,
        "stock-r1-b1",
        q,
        false,
        QueryRun.OK,
        millis,
        1,
        "d",
        "d",
        null,
        null,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        1,
        0,
        "t");
  }
}
