// Precompiled header for the engine's torch-using sources. Keep it to heavy, stable headers.
#pragma once
#include <torch/torch.h>
#include <algorithm>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>
