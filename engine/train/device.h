// Parsing of the `device=` argument (cpu, a CUDA index, or empty for the first GPU if any).
// Thread rules: free function, reentrant.
#pragma once
#include <c10/core/Device.h>

#include <string>

namespace ywb {

/// "cpu" -> CPU; "" -> CUDA 0 when available, else CPU; "N" -> CUDA N (checked against the devices present).
/// Throws ywb::Error for several devices ("0,1"), CUDA without a GPU, or an invalid index.
c10::Device pickDevice(const std::string& device);

}  // namespace ywb
