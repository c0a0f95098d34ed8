/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Where the native library lives inside the rdma-buffers jar: {@code
 * native/<os>-<arch>/libdisni.so} (for example {@code native/linux-x86_64/libdisni.so}). The one
 * place that turns {@code os.name} and {@code os.arch} into that folder name: {@link NativeLibrary}
 * reads it at run time, and the Maven build calls {@link #main} to place the library it just
 * compiled (profile {@code native} in rdma-buffers' pom), so build and run time can't disagree.
 */
public final class NativePlatform {
  /** The file name {@code System.loadLibrary("disni")} looks for on Linux. */
  public static final String LIBRARY_FILE = "libdisni.so";

  private NativePlatform() {}

  /** {@code linux-x86_64} for this JVM. */
  public static String folder() {
    return folder(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
  }

  static String folder(String osName, String osArch) {
    return os(osName) + "-" + arch(osArch);
  }

  /** The library's resource name in the jar for this JVM, without a leading slash. */
  public static String resource() {
    return "native/" + folder() + "/" + LIBRARY_FILE;
  }

  private static String os(String name) {
    String n = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "");
    if (n.startsWith("linux")) {
      return "linux";
    }
    if (n.startsWith("mac") || n.startsWith("osx") || n.startsWith("darwin")) {
      return "osx";
    }
    if (n.startsWith("windows")) {
      return "windows";
    }
    return n.isEmpty() ? "unknown" : n;
  }

  private static String arch(String name) {
    String a = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]+", "");
    return switch (a) {
      case "amd64", "x8664", "x86_64", "em64t" -> "x86_64";
      case "aarch64", "arm64" -> "aarch64";
      case "ppc64le" -> "ppc64le";
      case "s390x" -> "s390x";
      default -> a.isEmpty() ? "unknown" : a;
    };
  }

  /**
   * Build step: copies a freshly built library to {@code <classes dir>/native/<folder>/}, so the
   * jar carries it. Arguments: the built library, the classes directory.
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: NativePlatform <built libdisni.so> <classes dir>");
    }
    Path built = Paths.get(args[0]);
    Path target = Paths.get(args[1]).resolve(resource());
    Files.createDirectories(target.getParent());
    Files.copy(built, target, StandardCopyOption.REPLACE_EXISTING);
    System.out.println("native library " + built + " -> " + target);
  }
}
