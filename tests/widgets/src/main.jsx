// The widget fixtures: `index.html?w=NAME` shows one widget of a real component library and,
// in `[data-testid="result"]`, the state it produced (what the journeys extract).
import { createRoot } from 'react-dom/client';
import * as mui from './mui.jsx';
import * as radix from './radix.jsx';
import * as dnd from './dnd.jsx';
import * as dates from './dates.jsx';
import * as place from './place.jsx';
import * as choosers from './choosers.jsx';

const pages = {
  'mui-select': mui.SelectPage,
  'mui-autocomplete': mui.AutocompletePage,
  'mui-slider': mui.SliderPage,
  'mui-tabs': mui.TabsPage,
  'mui-dialog': mui.DialogPage,
  'mui-checkbox': mui.CheckboxPage,
  'mui-datepicker': dates.DatePickerPage,
  'mui-slider-label': place.SliderLabelPage,
  'radix-select': radix.SelectPage,
  'radix-slider': radix.SliderPage,
  'radix-tabs': radix.TabsPage,
  'radix-dialog': radix.DialogPage,
  'dnd-list': dnd.SortablePage,
};

function Index() {
  return (
    <ul>
      {[...Object.keys(pages), ...Object.keys(plainPages)].map((name) => (
        <li key={name}><a href={`?w=${name}`}>{name}</a></li>
      ))}
    </ul>
  );
}

// Pages without React: React listens to every key at its root, and these pages show what a
// field that only the widget (or nothing) listens to does.
const plainPages = {
  'tom-select': choosers.TomSelectPage,
  'selectize': choosers.SelectizePage,
  'number-field': choosers.NumberFieldPage,
};

const name = new URLSearchParams(location.search).get('w');
if (plainPages[name]) {
  plainPages[name](document.getElementById('root'));
} else {
  const Page = pages[name] ?? Index;
  createRoot(document.getElementById('root')).render(<Page />);
}
