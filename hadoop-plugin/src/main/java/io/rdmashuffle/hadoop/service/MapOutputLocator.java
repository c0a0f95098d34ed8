package io.rdmashuffle.hadoop.service;

import java.io.File;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.util.DiskChecker;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.AuxiliaryLocalPathHandler;

/**
 * Finds a map attempt's {@code file.out} and {@code file.out.index} in the NodeManager's local
 * dirs, where the NodeManager puts an application's map outputs:
 * {@code <local dir>/usercache/<user>/appcache/<application id>/output/<attempt id>/}, and
 * checks that both, with every link resolved, lie in such a dir of this very job and attempt.
 * Stateless; the dirs come from the NodeManager ({@link AuxiliaryLocalPathHandler}).
 */
final class MapOutputLocator {
  static final String DATA_FILE = "file.out";
  static final String INDEX_FILE = "file.out.index";

  private final AuxiliaryLocalPathHandler dirs;

  MapOutputLocator(AuxiliaryLocalPathHandler dirs) {
    this.dirs = dirs;
  }

  /** Where one map output lies, both paths real (links resolved). */
  record Located(Path data, Path index) {}

  /** A request named something this job may not read; the message says what and why. */
  static final class RefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    RefusedException(String message) {
      super(message);
    }
  }

  /** The application's output dir, relative to a local dir. */
  static String outputDir(JobID job, String user) {
    ApplicationId app =
        ApplicationId.newInstance(Long.parseLong(job.getJtIdentifier()), job.getId());
    // ContainerLocalizer.USERCACHE and APPCACHE: the NodeManager's layout of local dirs
    return "usercache/" + user + "/appcache/" + app + "/output/";
  }

  /**
   * Locates the output of {@code attempt}, a map of {@code job} run for {@code user}.
   *
   * @throws NoSuchFileException when the node has no such output
   * @throws RefusedException when the user name is not a plain name, or a file lies outside the
   *     job's output dirs
   */
  Located locate(JobID job, String user, TaskAttemptID attempt) throws IOException {
    if (user == null || user.isEmpty() || user.contains("/") || user.equals("..")
        || user.equals(".")) {
      throw new RefusedException("user=" + user + ": not a user name");
    }
    String base = outputDir(job, user);
    String attemptDir = base + attempt + "/";
    Path index = find(attemptDir + INDEX_FILE);
    Path data = find(attemptDir + DATA_FILE);
    List<Path> roots = new ArrayList<>();
    for (org.apache.hadoop.fs.Path r : dirs.getAllLocalPathsForRead(base)) {
      roots.add(toPath(r).toRealPath());
    }
    return new Located(inside(data, roots, attempt), inside(index, roots, attempt));
  }

  private Path find(String relative) throws IOException {
    try {
      return toPath(dirs.getLocalPathForRead(relative));
    } catch (DiskChecker.DiskErrorException e) {
      // LocalDirAllocator's way of saying no local dir has it
      throw new NoSuchFileException(relative);
    }
  }

  private static Path inside(Path p, List<Path> roots, TaskAttemptID attempt) throws IOException {
    Path real = p.toRealPath();
    Path dir = real.getParent();
    if (dir != null && dir.getFileName() != null
        && dir.getFileName().toString().equals(attempt.toString())
        && roots.contains(dir.getParent())) {
      return real;
    }
    throw new RefusedException(
        p.getFileName() + " of " + attempt + " resolves outside the job's output dirs");
  }

  private static Path toPath(org.apache.hadoop.fs.Path p) {
    return new File(p.toUri().getPath()).toPath();
  }
}
