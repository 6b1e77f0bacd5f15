"""Synthetic phone photos, game-blind parts: the camera and lens (:mod:`.camera`), tables
(:mod:`.table`), plane canvases and the lens warp (:mod:`.canvas`), light, sensor and JPEG
(:mod:`.photo`). Each game's scene renderer lays its own cards out and uses these."""
