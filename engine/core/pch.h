// Precompiled header for the engine's torch-using sources. Keep it to heavy, stable headers.
#pragma once
#include <torch/torch.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>
