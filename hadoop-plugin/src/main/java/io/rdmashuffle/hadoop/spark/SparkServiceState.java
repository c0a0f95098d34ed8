package io.rdmashuffle.hadoop.spark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Spark service keeps in the NodeManager's recovery dir so that a restarted NodeManager
 * serves the applications and executors it served before: the applications (user and Spark's
 * secret, which the NodeManager does not hand to its services again for running applications) and
 * the executors' local dirs. Spark's own handler keeps its registrations in its database beside it.
 * One small text file, readable by the NodeManager's user only, replaced whole on every change
 * (registrations are rare: one per executor).
 *
 * <pre>
 *   A &lt;tab&gt; application &lt;tab&gt; user &lt;tab&gt; Spark's secret in base64, or -
 *   E &lt;tab&gt; application &lt;tab&gt; executor &lt;tab&gt; subDirsPerLocalDir &lt;tab&gt; local dir ...
 * </pre>
 */
final class SparkServiceState {
  private static final Logger LOG = LoggerFactory.getLogger(SparkServiceState.class);
  static final String FILE_NAME = "rdma-shuffle-spark-executors";

  record ExecutorRecord(
      String application, String executor, String[] localDirs, int subDirsPerLocalDir) {}

  record Content(List<SparkExecutors.Application> applications, List<ExecutorRecord> executors) {}

  private final Path file;

  SparkServiceState(Path recoveryDir) {
    this.file = recoveryDir.resolve(FILE_NAME);
  }

  Path file() {
    return file;
  }

  /** What was kept; nothing when there is no file. A damaged line is skipped (logged). */
  Content load() {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return new Content(List.of(), List.of());
    } catch (IOException e) {
      LOG.warn("rdma-shuffle Spark service: can't read {}; nothing recovered", file, e);
      return new Content(List.of(), List.of());
    }
    List<SparkExecutors.Application> apps = new ArrayList<>();
    List<ExecutorRecord> executors = new ArrayList<>();
    for (String line : lines) {
      String[] f = line.split("\t", -1);
      try {
        if (f[0].equals("A") && f.length == 4) {
          String secret =
              f[3].equals("-")
                  ? null
                  : new String(Base64.getDecoder().decode(f[3]), StandardCharsets.UTF_8);
          apps.add(new SparkExecutors.Application(f[1], f[2].isEmpty() ? null : f[2], secret));
        } else if (f[0].equals("E") && f.length >= 5) {
          executors.add(
              new ExecutorRecord(
                  f[1], f[2], Arrays.copyOfRange(f, 4, f.length), Integer.parseInt(f[3])));
        } else if (!line.isEmpty()) {
          throw new IllegalArgumentException("unknown record");
        }
      } catch (IllegalArgumentException e) {
        LOG.warn(
            "rdma-shuffle Spark service: skipping a damaged line of {}: {}", file, e.getMessage());
      }
    }
    return new Content(apps, executors);
  }

  /** Replaces the file with {@code c}; a failure is logged (the service goes on serving). */
  void save(Content c) {
    StringBuilder sb = new StringBuilder();
    for (SparkExecutors.Application a : c.applications()) {
      if (plain(a.id()) && (a.user() == null || plain(a.user()))) {
        sb.append("A\t")
            .append(a.id())
            .append('\t')
            .append(a.user() == null ? "" : a.user())
            .append('\t')
            .append(
                a.sparkSecret() == null
                    ? "-"
                    : Base64.getEncoder()
                        .encodeToString(a.sparkSecret().getBytes(StandardCharsets.UTF_8)))
            .append('\n');
      }
    }
    for (ExecutorRecord e : c.executors()) {
      if (plain(e.application())
          && plain(e.executor())
          && Arrays.stream(e.localDirs()).allMatch(SparkServiceState::plain)) {
        sb.append("E\t")
            .append(e.application())
            .append('\t')
            .append(e.executor())
            .append('\t')
            .append(e.subDirsPerLocalDir());
        for (String d : e.localDirs()) {
          sb.append('\t').append(d);
        }
        sb.append('\n');
      }
    }
    try {
      Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
      Files.deleteIfExists(tmp);
      Files.createFile(
          tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(tmp, sb, StandardCharsets.UTF_8);
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      LOG.warn(
          "rdma-shuffle Spark service: can't keep its state in {}: a NodeManager restart"
              + " will not recover it",
          file,
          e);
    }
  }

  private static boolean plain(String s) {
    return s.indexOf('\t') < 0 && s.indexOf('\n') < 0;
  }
}
