/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import java.util.function.Function;

/**
 * Smoke test of real RDMA verbs through DiSNI and our native library, for the Soft-RoCE guest
 * (integration/softroce/run-in-guest.sh): loads the library the way production does ({@link
 * NativeLibrary}, nothing on java.library.path needed), then runs {@code disni.ReadSmoke} inside
 * its class loader. Run it with a plain {@code java}, no Maven:
 *
 * <pre>
 * java -Xcheck:jni --add-exports java.base/sun.nio.ch=ALL-UNNAMED \
 *   -cp rdma-buffers/target/classes:rdma-buffers/target/test-classes:DISNI_JAR:SLF4J_JARS \
 *   io.rdmashuffle.transport.verbs.DisniSmoke [server-ip client-ip port]
 * </pre>
 *
 * Defaults: server 198.18.100.1 (rxe0), client 198.18.100.2 (rxe1), port 19190. The system property
 * {@code rdma.shuffle.verbs.nativeLibrary} names a library to use instead of the bundled one. Exit
 * status 0 and a line starting with {@code SMOKE PASSED} when everything held; 1 when a check
 * failed; 2 when the library can't be loaded.
 */
public final class DisniSmoke {
  static final String READ_SMOKE = "io.rdmashuffle.transport.verbs.disni.ReadSmoke";

  private DisniSmoke() {}

  public static void main(String[] args) throws ReflectiveOperationException {
    String server = args.length > 0 ? args[0] : "198.18.100.1";
    String client = args.length > 1 ? args[1] : "198.18.100.2";
    String port = args.length > 2 ? args[2] : "19190";
    NativeLibrary lib =
        NativeLibrary.load(
            System.getProperty("rdma.shuffle.verbs.nativeLibrary", ""),
            "rdma.shuffle.verbs.nativeLibrary");
    System.out.println("native library: " + lib.describe());
    if (!lib.isAvailable()) {
      lib.unavailabilityCause().printStackTrace();
      System.exit(2);
    }
    @SuppressWarnings("unchecked")
    Function<String[], String> smoke = lib.newInstance(READ_SMOKE, Function.class);
    try {
      String summary = smoke.apply(new String[] {server, client, port});
      System.out.println("SMOKE PASSED: " + summary);
    } catch (RuntimeException e) {
      System.out.println("SMOKE FAILED: " + e);
      e.printStackTrace();
      System.exit(1);
    }
  }
}
