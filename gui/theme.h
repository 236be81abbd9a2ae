// Application-wide colour themes. Thread rules: GUI thread only.
#pragma once

namespace ywb::gui {

enum class Theme { Light, Dark };

/// Applies the Fusion style with a light or dark palette to the whole application.
void applyTheme(Theme theme);

}  // namespace ywb::gui
