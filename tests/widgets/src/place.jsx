// Where a press lands matters: MUI's Slider sets its value from the pointer's position on the
// press, wherever on the slider it is — also on the value label that rides above the thumb
// (`valueLabelDisplay="on"`), which is the thumb's child but outside its box.
import { useState } from 'react';
import Slider from '@mui/material/Slider';

const Result = ({ children }) => <output data-testid="result">{children}</output>;

export function SliderLabelPage() {
  const [volume, setVolume] = useState(30);
  return (
    <div>
      <h1>Volume</h1>
      <div style={{ width: 600, margin: '60px 20px 20px' }}>
        <Slider aria-label="Volume" min={0} max={100} step={1} value={volume}
          onChange={(_, v) => setVolume(v)} valueLabelDisplay="on" />
      </div>
      <Result>{volume}</Result>
    </div>
  );
}
