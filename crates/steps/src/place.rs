//! Where on an element a pointer step acts when the element's box has another size on replay
//! than when it was recorded, and the viewport a tool was recorded in.

use serde::{Deserialize, Serialize};

use crate::Offset;

/// An element's box size in CSS pixels, as recorded with an [`Offset`].
///
/// The recorded point keeps its *relative* place, per axis: a point inside the recorded box
/// stays at the same fraction of the box (a press at 30 % of a slider's track is at 30 % of
/// the track however wide it is now), and a point outside it (a slider's value label that
/// rides above its thumb) stays at the same distance from the nearest edge. The replayer's
/// resolver computes the point (`actionPoint` in `injected/src/resolve.ts`); [`Offset::place`]
/// is the same rule, for readers of tool files.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct BoxSize {
    /// Width in CSS pixels.
    pub width: f64,
    /// Height in CSS pixels.
    pub height: f64,
}

impl Offset {
    /// A point `x`, `y` pixels from the top-left corner, with no recorded box.
    pub fn px(x: f64, y: f64) -> Self {
        Offset {
            x,
            y,
            recorded_box: None,
        }
    }

    /// Where this offset lands in a box of `width` × `height` (see [`BoxSize`]).
    pub fn place(&self, width: f64, height: f64) -> (f64, f64) {
        match self.recorded_box {
            Some(recorded) => (
                along(self.x, recorded.width, width),
                along(self.y, recorded.height, height),
            ),
            None => (self.x, self.y),
        }
    }
}

/// How far from the edges of its box a point recorded inside it stays: one on the very edge (a
/// drop released as its target slid away) would hit whatever borders the box once positions
/// are rounded.
const EDGE_PX: f64 = 1.0;

/// One axis of [`Offset::place`].
fn along(at: f64, recorded: f64, now: f64) -> f64 {
    // A box with no size (or NaN) says nothing about where the point is relative to it.
    let sized = recorded > 0.0;
    if !sized || at < 0.0 {
        at
    } else if at > recorded {
        now + (at - recorded)
    } else {
        let edge = EDGE_PX.min(now / 2.0);
        (at / recorded * now).max(edge).min(now - edge)
    }
}

/// The size of the window's viewport a tool was recorded in (CSS pixels, `innerWidth` ×
/// `innerHeight` of the top-level page), replayed with the same size so that layouts, media
/// queries and popups that open above or below their field by the room left come out as
/// recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Viewport {
    /// Width in CSS pixels.
    pub width: u32,
    /// Height in CSS pixels.
    pub height: u32,
}

impl Viewport {
    /// The largest viewport side accepted (Chromium's own limit is 10 000 000; no screen is
    /// anywhere near this).
    pub const MAX_SIDE: u32 = 100_000;

    /// Why this viewport cannot be replayed, if it cannot.
    pub fn problem(&self) -> Option<String> {
        let ok = |side: u32| (1..=Self::MAX_SIDE).contains(&side);
        (!ok(self.width) || !ok(self.height)).then(|| {
            format!(
                "a viewport's width and height must be between 1 and {}, not {}×{}",
                Self::MAX_SIDE,
                self.width,
                self.height
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset(x: f64, y: f64, width: f64, height: f64) -> Offset {
        Offset {
            x,
            y,
            recorded_box: Some(BoxSize { width, height }),
        }
    }

    #[test]
    fn a_point_inside_keeps_its_fraction_of_the_box() {
        assert_eq!(
            offset(120.0, 5.0, 400.0, 10.0).place(200.0, 20.0),
            (60.0, 10.0)
        );
        assert_eq!(
            offset(120.0, 5.0, 400.0, 10.0).place(400.0, 10.0),
            (120.0, 5.0)
        );
    }

    #[test]
    fn a_point_recorded_on_an_edge_stays_a_pixel_inside() {
        // A drop released at the bottom edge of a 41 px row that is 40.5 px now.
        assert_eq!(
            offset(20.0, 40.9, 200.0, 41.0).place(200.0, 40.5),
            (20.0, 39.5)
        );
        assert_eq!(offset(0.0, 5.0, 10.0, 10.0).place(10.0, 10.0), (1.0, 5.0));
        // A box thinner than two pixels: its middle.
        assert_eq!(offset(0.0, 1.0, 10.0, 1.0).place(10.0, 1.0), (1.0, 0.5));
    }

    #[test]
    fn a_point_outside_keeps_its_distance_from_the_nearest_edge() {
        // A value label 30 px above a 20 px thumb that is 24 px now.
        assert_eq!(
            offset(10.0, -30.0, 20.0, 20.0).place(24.0, 24.0),
            (12.0, -30.0)
        );
        assert_eq!(
            offset(25.0, 26.0, 20.0, 20.0).place(30.0, 10.0),
            (35.0, 16.0)
        );
    }

    #[test]
    fn without_a_recorded_box_the_pixels_stay() {
        assert_eq!(Offset::px(7.0, 3.0).place(1000.0, 1000.0), (7.0, 3.0));
        assert_eq!(offset(7.0, 3.0, 0.0, 0.0).place(10.0, 10.0), (7.0, 3.0));
    }

    #[test]
    fn an_offset_without_a_box_reads_and_writes_as_before() {
        let json = serde_json::json!({ "x": 7.0, "y": 3.0 });
        let read: Offset = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(read, Offset::px(7.0, 3.0));
        assert_eq!(serde_json::to_value(read).unwrap(), json);
        let boxed =
            serde_json::json!({ "x": 7.0, "y": 3.0, "box": { "width": 20.0, "height": 10.0 } });
        let read: Offset = serde_json::from_value(boxed.clone()).unwrap();
        assert_eq!(read, offset(7.0, 3.0, 20.0, 10.0));
        assert_eq!(serde_json::to_value(read).unwrap(), boxed);
    }

    #[test]
    fn a_viewport_must_have_a_size() {
        assert!(
            Viewport {
                width: 1280,
                height: 800
            }
            .problem()
            .is_none()
        );
        assert!(
            Viewport {
                width: 0,
                height: 800
            }
            .problem()
            .is_some()
        );
        assert!(
            Viewport {
                width: 1280,
                height: 200_000
            }
            .problem()
            .is_some()
        );
    }
}
