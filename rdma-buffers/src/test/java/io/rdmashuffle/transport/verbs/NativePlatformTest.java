/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class NativePlatformTest {
  @Test
  void linuxOnAmd64IsLinuxX8664() {
    assertEquals("linux-x86_64", NativePlatform.folder("Linux", "amd64"));
    assertEquals("linux-x86_64", NativePlatform.folder("Linux", "x86_64"));
  }

  @Test
  void otherArchitecturesGetTheirUsualNames() {
    assertEquals("linux-aarch64", NativePlatform.folder("Linux", "aarch64"));
    assertEquals("linux-ppc64le", NativePlatform.folder("Linux", "ppc64le"));
    assertEquals("osx-aarch64", NativePlatform.folder("Mac OS X", "arm64"));
  }

  @Test
  void resourceIsTheLibraryInTheFolderOfThisJvm() {
    String resource = NativePlatform.resource();

    assertEquals("native/" + NativePlatform.folder() + "/libdisni.so", resource);
    assertTrue(NativePlatform.folder().matches("[a-z0-9]+-[a-z0-9_]+"), NativePlatform.folder());
  }
}
