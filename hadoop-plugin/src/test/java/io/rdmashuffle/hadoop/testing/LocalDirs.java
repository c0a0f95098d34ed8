/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.util.DiskChecker;
import org.apache.hadoop.yarn.server.api.AuxiliaryLocalPathHandler;

/** A NodeManager's local dirs for a service under test, as LocalDirsHandlerService offers them. */
public final class LocalDirs implements AuxiliaryLocalPathHandler {
  private final List<Path> dirs;

  public LocalDirs(List<Path> dirs) {
    this.dirs = List.copyOf(dirs);
  }

  public List<Path> dirs() {
    return dirs;
  }

  @Override
  public org.apache.hadoop.fs.Path getLocalPathForRead(String path) throws IOException {
    for (Path d : dirs) {
      Path p = d.resolve(path);
      if (Files.exists(p)) {
        return new org.apache.hadoop.fs.Path(p.toString());
      }
    }
    throw new DiskChecker.DiskErrorException("Could not find " + path + " in any local dir");
  }

  @Override
  public org.apache.hadoop.fs.Path getLocalPathForWrite(String path) {
    return new org.apache.hadoop.fs.Path(dirs.get(0).resolve(path).toString());
  }

  @Override
  public org.apache.hadoop.fs.Path getLocalPathForWrite(String path, long size) {
    return getLocalPathForWrite(path);
  }

  @Override
  public Iterable<org.apache.hadoop.fs.Path> getAllLocalPathsForRead(String path) {
    List<org.apache.hadoop.fs.Path> out = new ArrayList<>();
    for (Path d : dirs) {
      File f = d.resolve(path).toFile();
      if (f.exists()) {
        out.add(new org.apache.hadoop.fs.Path(f.getPath()));
      }
    }
    return out;
  }
}
