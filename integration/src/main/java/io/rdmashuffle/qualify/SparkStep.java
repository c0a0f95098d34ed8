/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import io.rdmashuffle.cluster.spark.SparkHome;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * qualify's Spark step: {@link ShuffleApp} submitted twice to the cluster's master, on Spark's
 * stock shuffle and on ours (the plugin jar on the driver's and executors' class path, the verbs
 * transport, the settings of {@code --set}), one after the other; the results must be equal, and
 * the times and remote bytes read are reported side by side. Each application's console output is
 * kept beside the report ({@code spark-stock.log}, {@code spark-ours.log}); a failed one is
 * reported by its first error line and that file.
 */
final class SparkStep {
  /** Where Spark is and what to submit. */
  record Options(
      Path sparkHome,
      String master,
      long bytes,
      int executors,
      String pluginJar,
      String appJar,
      Map<String, String> settings,
      long timeoutSeconds,
      Path logDir) {}

  private final Options o;

  SparkStep(Options o) {
    this.o = o;
  }

  void run(List<Check> checks) {
    String scope = "Spark on " + o.master();
    Map<String, String> stock = submit(false);
    Map<String, String> ours = submit(true);
    Map<String, Map<String, String>> runs = new LinkedHashMap<>();
    runs.put("stock", stock);
    runs.put("ours", ours);
    for (Map.Entry<String, Map<String, String>> e : runs.entrySet()) {
      if (e.getValue().containsKey("error")) {
        checks.add(
            Check.fail(
                scope,
                "Spark shuffle",
                "the application on the "
                    + e.getKey()
                    + " shuffle failed: "
                    + e.getValue().get("error"),
                e.getKey().equals("stock")
                    ? "Spark itself does not run here: fix that first (--spark-master, --spark-home)"
                    : "the plugin jar must be at "
                        + o.pluginJar()
                        + " on every node (spark.executor.extraClassPath); see the executors'"
                        + " logs and bin/rdma-shuffle doctor on each host"));
        return;
      }
    }
    String found =
        String.format(
            Locale.ROOT,
            "%s records of 1 KiB; stock %s ms (%s remote bytes read), ours %s ms (%s remote bytes"
                + " read), ours / stock %.2f",
            ours.get("records"),
            stock.get("millis"),
            stock.get("remoteBytes"),
            ours.get("millis"),
            ours.get("remoteBytes"),
            Double.parseDouble(ours.get("millis")) / Double.parseDouble(stock.get("millis")));
    if (!stock.get("records").equals(ours.get("records"))
        || !stock.get("checksum").equals(ours.get("checksum"))) {
      checks.add(
          Check.blocking(
              scope,
              "Spark shuffle",
              "different results: stock "
                  + stock.get("records")
                  + " records, checksum "
                  + stock.get("checksum")
                  + "; ours "
                  + ours.get("records")
                  + ", "
                  + ours.get("checksum"),
              "do not use rdma-shuffle on this cluster; report it with this report and the"
                  + " executors' logs"));
      return;
    }
    checks.add(Check.pass(scope, "Spark shuffle", "equal results: " + found));
  }

  private Map<String, String> submit(boolean ours) {
    List<String> cmd = command(ours);
    Map<String, String> out = new LinkedHashMap<>();
    try {
      Files.createDirectories(o.logDir());
      Path log = o.logDir().resolve(ours ? "spark-ours.log" : "spark-stock.log");
      Process p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      if (!p.waitFor(o.timeoutSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        out.put("error", "did not end within " + o.timeoutSeconds() + " s (output: " + log + ")");
        return out;
      }
      String text = Files.readString(log, StandardCharsets.UTF_8);
      for (String line : text.split("\n")) {
        if (line.startsWith("qualify-shuffle ")) {
          for (String kv : line.substring(16).trim().split(" ")) {
            out.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
          }
        }
      }
      if (!out.containsKey("records")) {
        out.put(
            "error",
            "exit status " + p.exitValue() + ": " + firstError(text) + " (output: " + log + ")");
      }
    } catch (java.io.IOException e) {
      out.put("error", "could not start spark-submit: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      out.put("error", "interrupted");
    }
    return out;
  }

  /** The command line that submits the application, on the stock shuffle or on ours. */
  List<String> command(boolean ours) {
    List<String> cmd = new ArrayList<>();
    Path script = o.sparkHome().resolve("bin/spark-submit");
    if (Files.isExecutable(script)) {
      cmd.add(script.toString());
    } else {
      // a Spark home of jars only (as the project builds one): Spark's launcher by hand, the
      // driver in this JVM, so spark.driver.extraClassPath (which spark-submit's script applies
      // when it starts the JVM) goes on its class path here
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(SparkHome.MODULE_OPTIONS);
      String cp = o.sparkHome().resolve("jars") + "/*";
      cmd.addAll(
          List.of(
              "-Xmx512m",
              "-cp",
              o.pluginJar().isEmpty() ? cp : cp + File.pathSeparator + o.pluginJar()));
      cmd.add("org.apache.spark.deploy.SparkSubmit");
    }
    cmd.addAll(List.of("--master", o.master(), "--class", ShuffleApp.class.getName()));
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.driver.extraClassPath", o.pluginJar());
    conf.put("spark.executor.extraClassPath", o.pluginJar());
    conf.put("spark.executor.memory", "512m");
    if (ours) {
      conf.put("spark.shuffle.manager", "org.apache.spark.shuffle.rdma.RdmaShuffleManager");
      conf.put("spark.shuffle.rdma.transport", "verbs");
      conf.putAll(o.settings());
    }
    conf.forEach((k, v) -> cmd.addAll(List.of("--conf", k + "=" + v)));
    cmd.addAll(
        List.of(
            o.appJar(),
            Long.toString(o.bytes()),
            Integer.toString(o.executors()),
            Long.toString(o.timeoutSeconds())));
    return cmd;
  }

  /**
   * What a failed application's output says went wrong, where its last lines are a stack's frames:
   * the exception that ended the driver ({@code Exception in thread ...}), else its first line
   * logged at ERROR, else its last line.
   */
  static String firstError(String output) {
    List<String> lines = output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    return lines.stream()
        .filter(l -> l.startsWith("Exception in thread"))
        .findFirst()
        .or(() -> lines.stream().filter(l -> l.contains(" ERROR ")).findFirst())
        .orElse(lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1));
  }
}
