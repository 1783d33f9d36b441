//! Screenshot thumbnails for step timelines and run reports.

use std::io::Cursor;

use image::ImageFormat;
use image::imageops::FilterType;

/// Why a thumbnail could not be made.
#[derive(Debug, thiserror::Error)]
#[error("could not make a thumbnail: {0}")]
pub struct ThumbnailError(#[from] image::ImageError);

/// Scales a PNG down to at most `max_width` pixels wide (keeping its aspect ratio) and encodes
/// it as PNG again. Images already narrow enough are re-encoded unchanged.
pub fn thumbnail_png(png: &[u8], max_width: u32) -> Result<Vec<u8>, ThumbnailError> {
    let image = image::load_from_memory_with_format(png, ImageFormat::Png)?;
    let scaled = if image.width() > max_width && max_width > 0 {
        let height = (u64::from(image.height()) * u64::from(max_width) / u64::from(image.width()))
            .max(1) as u32;
        image.resize_exact(max_width, height, FilterType::Triangle)
    } else {
        image
    };
    let mut out = Cursor::new(Vec::new());
    scaled.write_to(&mut out, ImageFormat::Png)?;
    Ok(out.into_inner())
}
