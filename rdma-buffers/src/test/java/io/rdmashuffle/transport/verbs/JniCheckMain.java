/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Child JVM of {@code NativeLibraryTest.jniChecksFindNothingToReport}: loads the bundled library
 * and runs {@code disni.NativeCallsProbe} (every native method, plus an event channel), so the test
 * can read what {@code -Xcheck:jni} printed. Prints one line per call; exit status 0 when the
 * library loaded and the probe ran.
 */
public final class JniCheckMain {
  private JniCheckMain() {}

  public static void main(String[] args) throws Exception {
    NativeLibrary lib =
        NativeLibrary.attempt(
            "",
            "verbs.nativeLibrary",
            JniCheckMain.class.getClassLoader(),
            System.getProperty("java.library.path", ""));
    if (!lib.isAvailable()) {
      lib.unavailabilityCause().printStackTrace();
      System.exit(2);
    }
    @SuppressWarnings("unchecked")
    Callable<Map<String, String>> probe =
        lib.newInstance("io.rdmashuffle.transport.verbs.disni.NativeCallsProbe", Callable.class);
    probe.call().forEach((call, outcome) -> System.out.println(call + " " + outcome));
    System.out.println("probe done");
  }
}
