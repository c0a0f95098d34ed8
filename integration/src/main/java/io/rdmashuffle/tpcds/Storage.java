/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Small files on any Hadoop-compatible path (HDFS, S3, a local folder): the dataset marker, the
 * records and stored results the applications write and the launcher collects.
 */
public final class Storage {
  private final Configuration conf;

  public Storage(Configuration conf) {
    this.conf = conf;
  }

  private FileSystem fs(Path p) throws IOException {
    return p.getFileSystem(conf);
  }

  public boolean exists(String path) throws IOException {
    Path p = new Path(path);
    return fs(p).exists(p);
  }

  /** Writes (replaces) a small text file. */
  public void write(String path, String text) throws IOException {
    Path p = new Path(path);
    try (OutputStream out = fs(p).create(p, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  public String read(String path) throws IOException {
    Path p = new Path(path);
    try (InputStream in = fs(p).open(p)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Names of the entries of a folder; empty when it does not exist. */
  public List<String> list(String dir) throws IOException {
    Path p = new Path(dir);
    List<String> out = new ArrayList<>();
    if (!fs(p).exists(p)) {
      return out;
    }
    for (FileStatus s : fs(p).listStatus(p)) {
      out.add(s.getPath().getName());
    }
    return out;
  }

  public void delete(String path) throws IOException {
    Path p = new Path(path);
    fs(p).delete(p, true);
  }

  /** {@code dir/name}, keeping the scheme of {@code dir}. */
  public static String child(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }
}
