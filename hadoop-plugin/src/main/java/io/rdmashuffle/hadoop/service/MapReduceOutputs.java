/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.serve.ConfinedFiles;
import io.rdmashuffle.serve.OpenedOutput;
import io.rdmashuffle.serve.OutputSource;
import io.rdmashuffle.serve.RefusedException;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.AuxiliaryLocalPathHandler;

/**
 * Where a NodeManager finds MapReduce map outputs for the serving core: a map attempt's {@code
 * file.out} and {@code file.out.index} in the NodeManager's local dirs, {@code <local
 * dir>/usercache/<user>/appcache/<application>/output/<attempt>/}, each in any of the local dirs
 * (the map's local dir allocator chose). Both are opened component by component from the local dir
 * ({@link ConfinedFiles}: no links, the owner checked on the open file), and the index becomes the
 * output's partition table ({@link SpillIndexLayout}). An {@link OutputId} names the job as its
 * application, no shuffle, and the map attempt as its map. Stateless; thread-safe.
 */
final class MapReduceOutputs implements OutputSource {
  static final String DATA_FILE = "file.out";
  static final String INDEX_FILE = "file.out.index";

  /** Components below a local dir down to the application's output dir. */
  private static final int OUTPUT_DIR_DEPTH = 5;

  private final AuxiliaryLocalPathHandler dirs;
  private final Function<String, String> userOfJob;
  private final Function<String, String> ownerOfJob;

  /**
   * @param userOfJob the user a job runs as (its outputs lie under that user's dir), or null when
   *     the service does not know the job
   * @param ownerOfJob the user a job's files must belong to, or null not to check (the stock
   *     shuffle checks owners only with security on)
   */
  MapReduceOutputs(
      AuxiliaryLocalPathHandler dirs,
      Function<String, String> userOfJob,
      Function<String, String> ownerOfJob) {
    this.dirs = dirs;
    this.userOfJob = userOfJob;
    this.ownerOfJob = ownerOfJob;
  }

  @Override
  public OpenedOutput open(OutputId id) throws IOException {
    JobID job = job(id);
    TaskAttemptID attempt = mapAttempt(id, job);
    String user = userOfJob.apply(id.application());
    if (user == null
        || user.isEmpty()
        || user.contains("/")
        || user.equals(".")
        || user.equals("..")) {
      throw new RefusedException("user=" + user + " of " + job + ": not a user name");
    }
    String owner = ownerOfJob.apply(id.application());
    List<String> attemptDir = new ArrayList<>(outputDir(job, user));
    List<Path> roots = localDirs(attemptDir);
    attemptDir.add(attempt.toString());
    // the map task put its index and its data wherever its local dir allocator chose: each may
    // lie in another local dir
    PartitionTable table = null;
    for (Path root : roots) {
      try (FileChannel index = ConfinedFiles.open(root, with(attemptDir, INDEX_FILE), owner)) {
        table = readIndex(index, root, attempt);
        break;
      } catch (NoSuchFileException e) {
        // another local dir may have it
      }
    }
    if (table != null) {
      for (Path root : roots) {
        List<String> data = with(attemptDir, DATA_FILE);
        try {
          FileChannel ch = ConfinedFiles.open(root, data, owner);
          return new OpenedOutput(root.resolve(String.join("/", data)), ch, table);
        } catch (NoSuchFileException e) {
          // another local dir may have it
        }
      }
    }
    throw new NoSuchFileException("no output of " + attempt + " in this node's local dirs");
  }

  private static JobID job(OutputId id) throws RefusedException {
    try {
      return JobID.forName(id.application());
    } catch (IllegalArgumentException e) {
      throw new RefusedException("application " + id.application() + ": not a MapReduce job");
    }
  }

  private static TaskAttemptID mapAttempt(OutputId id, JobID job) throws RefusedException {
    TaskAttemptID attempt;
    try {
      attempt = TaskAttemptID.forName(id.map());
    } catch (IllegalArgumentException e) {
      attempt = null;
    }
    if (!id.shuffle().isEmpty()
        || attempt == null
        || !attempt.getJobID().equals(job)
        || attempt.getTaskType() != TaskType.MAP
        || !attempt.toString().equals(id.map())) {
      throw new RefusedException(id.map() + ": not a map attempt of " + job);
    }
    return attempt;
  }

  /** The application's output dir below a local dir, as the NodeManager lays it out. */
  static List<String> outputDir(JobID job, String user) {
    ApplicationId app =
        ApplicationId.newInstance(Long.parseLong(job.getJtIdentifier()), job.getId());
    // ContainerLocalizer.USERCACHE and APPCACHE
    return List.of("usercache", user, "appcache", app.toString(), "output");
  }

  /** The local dirs (the trusted roots) that have {@code below}. */
  private List<Path> localDirs(List<String> below) throws IOException {
    List<Path> roots = new ArrayList<>();
    for (org.apache.hadoop.fs.Path p : dirs.getAllLocalPathsForRead(String.join("/", below))) {
      Path root = new File(p.toUri().getPath()).toPath();
      for (int i = 0; i < OUTPUT_DIR_DEPTH && root != null; i++) {
        root = root.getParent();
      }
      if (root != null) {
        roots.add(root);
      }
    }
    return roots;
  }

  private static List<String> with(List<String> dir, String name) {
    List<String> all = new ArrayList<>(dir);
    all.add(name);
    return all;
  }

  private static PartitionTable readIndex(FileChannel ch, Path root, TaskAttemptID attempt)
      throws IOException {
    long size = ch.size();
    if (size > SpillIndexLayout.fileLength(SpillIndexLayout.MAX_PARTITIONS)) {
      throw new IOException(
          "index of " + attempt + " in " + root + ": " + size + " bytes, too long");
    }
    ByteBuffer b = ByteBuffer.allocate((int) size);
    while (b.hasRemaining()) {
      if (ch.read(b, b.position()) < 0) {
        throw new EOFException(
            "index of "
                + attempt
                + " in "
                + root
                + " ended at "
                + b.position()
                + " of "
                + size
                + " bytes");
      }
    }
    try {
      return SpillIndexLayout.decode(b.flip());
    } catch (IllegalArgumentException e) {
      throw new IOException("index of " + attempt + " in " + root + ": " + e.getMessage(), e);
    }
  }
}
