/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.provider;

import java.util.List;

/**
 * Whether a transport can run on this node, and the findings that say why (shown by the doctor
 * command and logged once when {@code auto} passes it over).
 */
public record Availability(boolean available, String cause, List<String> findings) {
  public static Availability available(List<String> findings) {
    return new Availability(true, "", List.copyOf(findings));
  }

  public static Availability unavailable(String cause, List<String> findings) {
    return new Availability(false, cause, List.copyOf(findings));
  }
}
