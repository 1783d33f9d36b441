// Radix UI primitives (unstyled, so the styles here only make them visible). Radix opens its
// Select on pointerdown, activates Tabs on mousedown, and moves its Slider by pointer or keys.
import { useState } from 'react';
import * as Dialog from '@radix-ui/react-dialog';
import * as Select from '@radix-ui/react-select';
import * as Slider from '@radix-ui/react-slider';
import * as Tabs from '@radix-ui/react-tabs';

const Result = ({ children }) => <output data-testid="result">{children}</output>;

const box = { border: '1px solid #888', borderRadius: 4, padding: '6px 10px', background: 'white', cursor: 'pointer' };

export function SelectPage() {
  const [fruit, setFruit] = useState('');
  return (
    <div>
      <h1>Order fruit</h1>
      <Select.Root value={fruit} onValueChange={setFruit}>
        <Select.Trigger aria-label="Fruit" style={box}>
          <Select.Value placeholder="Pick a fruit…" />
        </Select.Trigger>
        <Select.Portal>
          <Select.Content position="popper" sideOffset={4} style={{ ...box, padding: 4 }}>
            <Select.Viewport>
              {['Apple', 'Banana', 'Cherry', 'Grape', 'Mango'].map((f) => (
                <Select.Item key={f} value={f.toLowerCase()} style={{ padding: '4px 8px' }}>
                  <Select.ItemText>{f}</Select.ItemText>
                </Select.Item>
              ))}
            </Select.Viewport>
          </Select.Content>
        </Select.Portal>
      </Select.Root>
      <Result>{fruit || 'no fruit'}</Result>
    </div>
  );
}

export function SliderPage() {
  const [volume, setVolume] = useState([30]);
  return (
    <div>
      <h1>Volume</h1>
      <Slider.Root value={volume} onValueChange={setVolume} min={0} max={100} step={5} aria-label="Volume"
        style={{ position: 'relative', display: 'flex', alignItems: 'center', width: 300, height: 24, margin: 20 }}>
        <Slider.Track style={{ position: 'relative', flexGrow: 1, height: 4, background: '#ccc' }}>
          <Slider.Range style={{ position: 'absolute', height: '100%', background: '#333' }} />
        </Slider.Track>
        <Slider.Thumb aria-label="Volume" style={{ display: 'block', width: 18, height: 18, borderRadius: 9, background: '#333' }} />
      </Slider.Root>
      <Result>{volume[0]}</Result>
    </div>
  );
}

export function TabsPage() {
  const [tab, setTab] = useState('account');
  const text = { account: 'Change your name here.', password: 'Change your password here.', billing: 'Your plan renews on the 1st.' };
  return (
    <div>
      <h1>Settings</h1>
      <Tabs.Root value={tab} onValueChange={setTab}>
        <Tabs.List aria-label="Settings sections" style={{ display: 'flex', gap: 8 }}>
          <Tabs.Trigger value="account" style={box}>Account</Tabs.Trigger>
          <Tabs.Trigger value="password" style={box}>Password</Tabs.Trigger>
          <Tabs.Trigger value="billing" style={box}>Billing</Tabs.Trigger>
        </Tabs.List>
        {Object.entries(text).map(([k, v]) => <Tabs.Content key={k} value={k}><p>{v}</p></Tabs.Content>)}
      </Tabs.Root>
      <Result>{text[tab]}</Result>
    </div>
  );
}

export function DialogPage() {
  const [name, setName] = useState('');
  const [saved, setSaved] = useState('nobody');
  return (
    <div>
      <h1>Profile</h1>
      <Dialog.Root>
        <Dialog.Trigger style={box}>Edit profile</Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay style={{ position: 'fixed', inset: 0, background: 'rgba(0,0,0,.3)' }} />
          <Dialog.Content style={{ ...box, position: 'fixed', top: '30%', left: '30%', padding: 20 }}>
            <Dialog.Title>Edit profile</Dialog.Title>
            <Dialog.Description>Your name as others see it.</Dialog.Description>
            <label>Name <input value={name} onChange={(e) => setName(e.target.value)} /></label>
            <div className="row">
              <Dialog.Close asChild><button onClick={() => setSaved(name || 'nobody')}>Save changes</button></Dialog.Close>
              <Dialog.Close asChild><button aria-label="Close">×</button></Dialog.Close>
            </div>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
      <Result>{saved}</Result>
    </div>
  );
}
