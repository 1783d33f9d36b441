// Material UI widgets. Their behaviour is MUI's own: the Select opens on mousedown and covers
// the page with an invisible backdrop; the Autocomplete is driven by arrows; the Slider moves by
// dragging its thumb or by arrow keys; the Dialog traps focus.
import { useState } from 'react';
import Autocomplete from '@mui/material/Autocomplete';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Select from '@mui/material/Select';
import Slider from '@mui/material/Slider';
import Switch from '@mui/material/Switch';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';

const Result = ({ children }) => <output data-testid="result">{children}</output>;

export function SelectPage() {
  const [plan, setPlan] = useState('');
  const [size, setSize] = useState('');
  return (
    <div>
      <h1>Choose a plan</h1>
      <div className="row">
        <FormControl sx={{ minWidth: 200 }}>
          <InputLabel id="plan-label">Plan</InputLabel>
          <Select labelId="plan-label" label="Plan" value={plan} onChange={(e) => setPlan(e.target.value)}>
            <MenuItem value="basic">Basic</MenuItem>
            <MenuItem value="pro">Pro</MenuItem>
            <MenuItem value="enterprise">Enterprise</MenuItem>
          </Select>
        </FormControl>
        <FormControl sx={{ minWidth: 200 }}>
          <InputLabel id="size-label">Team size</InputLabel>
          <Select labelId="size-label" label="Team size" value={size} onChange={(e) => setSize(e.target.value)}>
            {[1, 5, 10, 50].map((n) => <MenuItem key={n} value={n}>{n} people</MenuItem>)}
          </Select>
        </FormControl>
      </div>
      <Result>{plan ? `${plan} for ${size || '?'}` : 'no plan'}</Result>
    </div>
  );
}

const countries = ['Germany', 'Georgia', 'Ghana', 'Greece', 'Grenada', 'France', 'Finland', 'Japan', 'Jamaica', 'Jordan'];

export function AutocompletePage() {
  const [country, setCountry] = useState(null);
  return (
    <div>
      <h1>Shipping</h1>
      <Autocomplete
        options={countries}
        value={country}
        onChange={(_, v) => setCountry(v)}
        sx={{ width: 300 }}
        renderInput={(params) => <TextField {...params} label="Country" />}
      />
      <Result>{country ?? 'no country'}</Result>
    </div>
  );
}

export function SliderPage() {
  const [years, setYears] = useState(10);
  // A loan of 24,000 at 6 % a year: the monthly payment for the chosen term.
  const rate = 0.06 / 12;
  const monthly = Math.round((24000 * rate) / (1 - Math.pow(1 + rate, -years * 12)));
  return (
    <div>
      <h1>Loan calculator</h1>
      <div style={{ width: 400, margin: '40px 20px' }}>
        <Slider aria-label="Loan term (years)" min={1} max={30} step={1} value={years}
          onChange={(_, v) => setYears(v)} valueLabelDisplay="auto" />
      </div>
      <p>Term: <span data-testid="years">{years}</span> years</p>
      <Result>{monthly}</Result>
    </div>
  );
}

export function TabsPage() {
  const [tab, setTab] = useState(0);
  const panels = ['Free shipping over 50 EUR.', '4.6 stars from 212 reviews.', 'Ships in 2 days from Berlin.'];
  return (
    <div>
      <h1>Product</h1>
      <Tabs value={tab} onChange={(_, v) => setTab(v)} aria-label="Product details">
        <Tab label="Details" />
        <Tab label="Reviews" />
        <Tab label="Shipping" />
      </Tabs>
      <div role="tabpanel" style={{ padding: 16 }}>{panels[tab]}</div>
      <Result>{panels[tab]}</Result>
    </div>
  );
}

export function DialogPage() {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [agreed, setAgreed] = useState(false);
  const [state, setState] = useState('not subscribed');
  return (
    <div>
      <h1>Newsletter</h1>
      <Button variant="contained" onClick={() => setOpen(true)}>Subscribe</Button>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby="subscribe-title">
        <DialogTitle id="subscribe-title">Subscribe to the newsletter</DialogTitle>
        <DialogContent>
          <TextField label="Email" type="email" value={email} onChange={(e) => setEmail(e.target.value)}
            margin="dense" fullWidth />
          <FormControlLabel control={<Checkbox checked={agreed} onChange={(e) => setAgreed(e.target.checked)} />} label="I agree to the terms" />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>Cancel</Button>
          <Button disabled={!agreed || !email} onClick={() => { setState(`subscribed ${email}`); setOpen(false); }}>Confirm</Button>
        </DialogActions>
      </Dialog>
      <Result>{state}</Result>
    </div>
  );
}

export function CheckboxPage() {
  const [express, setExpress] = useState(false);
  const [gift, setGift] = useState(false);
  const [dark, setDark] = useState(false);
  return (
    <div>
      <h1>Options</h1>
      <FormControlLabel control={<Checkbox checked={express} onChange={(e) => setExpress(e.target.checked)} />} label="Express delivery" />
      <FormControlLabel control={<Checkbox checked={gift} onChange={(e) => setGift(e.target.checked)} />} label="Gift wrap" />
      <FormControlLabel control={<Switch checked={dark} onChange={(e) => setDark(e.target.checked)} />} label="Dark mode" />
      <Result>{[express && 'express', gift && 'gift', dark && 'dark'].filter(Boolean).join(',') || 'none'}</Result>
    </div>
  );
}
