/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.spark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Spark service keeps in the NodeManager's recovery dir so that a restarted NodeManager
 * serves the applications and executors it served before: the applications (user and Spark's
 * secret, which the NodeManager does not hand to its services again for running applications) and
 * the executors' local dirs. Spark's own handler keeps its registrations in its database beside it.
 * One small text file, readable by the NodeManager's user only: a log of changes, one line each,
 * appended (a registration writes its own line, never the whole state), and rewritten whole only
 * when the lines of what is gone outnumber those of what is live, so each change costs O(1)
 * amortized however many executors are registered.
 *
 * <pre>
 *   A &lt;tab&gt; application &lt;tab&gt; user &lt;tab&gt; Spark's secret in base64, or -
 *   E &lt;tab&gt; application &lt;tab&gt; executor &lt;tab&gt; subDirsPerLocalDir &lt;tab&gt; local dir ...
 *   R &lt;tab&gt; application          (the application ended: forget it and its executors)
 * </pre>
 *
 * Not thread-safe: its owner ({@link SparkExecutors}) calls it under its lock.
 */
final class SparkServiceState {
  private static final Logger LOG = LoggerFactory.getLogger(SparkServiceState.class);
  static final String FILE_NAME = "rdma-shuffle-spark-executors";

  /** Lines the file may hold beyond twice the live records before it is rewritten. */
  static final int SLACK_LINES = 64;

  record ExecutorRecord(
      String application, String executor, String[] localDirs, int subDirsPerLocalDir) {}

  record Content(List<SparkExecutors.Application> applications, List<ExecutorRecord> executors) {}

  private final Path file;
  private long lines;

  SparkServiceState(Path recoveryDir) {
    this.file = recoveryDir.resolve(FILE_NAME);
  }

  Path file() {
    return file;
  }

  /** What was kept; nothing when there is no file. A damaged line is skipped (logged). */
  Content load() {
    List<String> all;
    try {
      all = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return new Content(List.of(), List.of());
    } catch (IOException e) {
      LOG.warn("rdma-shuffle Spark service: can't read {}; nothing recovered", file, e);
      return new Content(List.of(), List.of());
    }
    lines = all.size();
    Map<String, SparkExecutors.Application> apps = new LinkedHashMap<>();
    Map<String, ExecutorRecord> executors = new LinkedHashMap<>();
    for (String line : all) {
      String[] f = line.split("\t", -1);
      try {
        if (f[0].equals("A") && f.length == 4) {
          String secret =
              f[3].equals("-")
                  ? null
                  : new String(Base64.getDecoder().decode(f[3]), StandardCharsets.UTF_8);
          apps.put(
              f[1], new SparkExecutors.Application(f[1], f[2].isEmpty() ? null : f[2], secret));
        } else if (f[0].equals("E") && f.length >= 5) {
          executors.put(
              f[1] + '\t' + f[2],
              new ExecutorRecord(
                  f[1], f[2], Arrays.copyOfRange(f, 4, f.length), Integer.parseInt(f[3])));
        } else if (f[0].equals("R") && f.length == 2) {
          apps.remove(f[1]);
          executors.values().removeIf(e -> e.application().equals(f[1]));
        } else if (!line.isEmpty()) {
          throw new IllegalArgumentException("unknown record");
        }
      } catch (IllegalArgumentException e) {
        LOG.warn(
            "rdma-shuffle Spark service: skipping a damaged line of {}: {}", file, e.getMessage());
      }
    }
    return new Content(List.copyOf(apps.values()), List.copyOf(executors.values()));
  }

  void applicationAdded(SparkExecutors.Application a) {
    String line = applicationLine(a);
    if (line != null) {
      append(line);
    }
  }

  void executorRegistered(ExecutorRecord e) {
    String line = executorLine(e);
    if (line != null) {
      append(line);
    }
  }

  void applicationRemoved(String application) {
    if (plain(application)) {
      append("R\t" + application + "\n");
    }
  }

  /**
   * Rewrites the file with {@code live} when the lines of what is gone outnumber the live records
   * (beyond a slack): what keeps the log's length proportional to what is registered.
   */
  void compactIfWorth(Supplier<Content> live, int liveRecords) {
    if (lines > 2L * liveRecords + SLACK_LINES) {
      rewrite(live.get());
    }
  }

  /** Replaces the file with {@code c}; a failure is logged (the service goes on serving). */
  void rewrite(Content c) {
    StringBuilder sb = new StringBuilder();
    long n = 0;
    for (SparkExecutors.Application a : c.applications()) {
      String line = applicationLine(a);
      if (line != null) {
        sb.append(line);
        n++;
      }
    }
    for (ExecutorRecord e : c.executors()) {
      String line = executorLine(e);
      if (line != null) {
        sb.append(line);
        n++;
      }
    }
    try {
      Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
      Files.deleteIfExists(tmp);
      Files.createFile(tmp, OWNER_ONLY);
      Files.writeString(tmp, sb, StandardCharsets.UTF_8);
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      lines = n;
    } catch (IOException e) {
      failed(e);
    }
  }

  private static final java.nio.file.attribute.FileAttribute<?> OWNER_ONLY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  private void append(String line) {
    try {
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        Files.createFile(file, OWNER_ONLY);
      }
      Files.writeString(
          file,
          line,
          StandardCharsets.UTF_8,
          StandardOpenOption.APPEND,
          StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS);
      lines++;
    } catch (IOException e) {
      failed(e);
    }
  }

  private void failed(IOException e) {
    LOG.warn(
        "rdma-shuffle Spark service: can't keep its state in {}: a NodeManager restart"
            + " will not recover it",
        file,
        e);
  }

  private static String applicationLine(SparkExecutors.Application a) {
    if (!plain(a.id()) || (a.user() != null && !plain(a.user()))) {
      return null;
    }
    return "A\t"
        + a.id()
        + '\t'
        + (a.user() == null ? "" : a.user())
        + '\t'
        + (a.sparkSecret() == null
            ? "-"
            : Base64.getEncoder().encodeToString(a.sparkSecret().getBytes(StandardCharsets.UTF_8)))
        + '\n';
  }

  private static String executorLine(ExecutorRecord e) {
    if (!plain(e.application())
        || !plain(e.executor())
        || !Arrays.stream(e.localDirs()).allMatch(SparkServiceState::plain)) {
      return null;
    }
    StringBuilder sb =
        new StringBuilder("E\t")
            .append(e.application())
            .append('\t')
            .append(e.executor())
            .append('\t')
            .append(e.subDirsPerLocalDir());
    for (String d : e.localDirs()) {
      sb.append('\t').append(d);
    }
    return sb.append('\n').toString();
  }

  private static boolean plain(String s) {
    return s.indexOf('\t') < 0 && s.indexOf('\n') < 0;
  }
}
