/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.OutputId;
import java.io.IOException;

/**
 * Where a serving process finds map outputs on demand: an engine's knowledge of its files. Spark
 * executors know the outputs their tasks committed; the NodeManager services find MapReduce outputs
 * and Spark executors' outputs in the node's local dirs. A source opens the data file once, checks
 * that very open file (where it lies, who owns it), reads the partition table, and hands both over:
 * whatever is served afterwards is exactly the file it checked.
 */
public interface OutputSource {
  /**
   * Opens the data file of {@code id} for reading only and reads its partition table.
   *
   * @throws java.nio.file.NoSuchFileException when there is no such output here
   * @throws RefusedException when the output may not be served to {@code id.application()}
   * @throws IOException when its files can't be read (the output is damaged or lost)
   */
  OpenedOutput open(OutputId id) throws IOException;
}
