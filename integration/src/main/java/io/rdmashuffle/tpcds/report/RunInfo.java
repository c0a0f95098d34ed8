/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a comparison was: shown in the report's header and saved as {@code run.json}. The launcher
 * fills it (machine, Spark version, master, scale factor, the two sides' shuffle managers,
 * transport and settings, rounds, warm-up, data path, times).
 *
 * @param title one line, e.g. {@code TPC-DS SF1: stock vs ours}
 * @param header ordered name/value lines
 */
public record RunInfo(String title, Map<String, String> header) {
  public RunInfo {
    header = new LinkedHashMap<>(header);
  }
}
