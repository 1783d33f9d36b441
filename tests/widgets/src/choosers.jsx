// Fields that search and choose, without React (so nothing but the widget listens to keys):
// Tom Select, which filters on `input` and chooses on keydown (Enter, arrows), and selectize
// (jQuery), which filters on `keyup` alone — inserted text never filters it, as Shiny's
// select inputs show. And a plain number field whose page listens only to `input`.
import $ from 'jquery';
import 'selectize';
import 'selectize/dist/css/selectize.default.css';
import TomSelect from 'tom-select';
import 'tom-select/dist/css/tom-select.default.css';

const FRUITS = ['Apple', 'Apricot', 'Banana', 'Blackberry', 'Blueberry', 'Cherry', 'Grape', 'Grapefruit',
  'Mango', 'Peach', 'Pear', 'Plum'];

// A labelled <select> of the fruits and the result the journeys read.
function fruitPage(root, title) {
  root.innerHTML = `<h1>${title}</h1>
    <label for="fruit">Fruit</label>
    <select id="fruit" placeholder="Pick a fruit…"><option value="">Pick a fruit…</option>
      ${FRUITS.map((f) => `<option value="${f.toLowerCase()}">${f}</option>`).join('')}
    </select>
    <output data-testid="result">no fruit</output>`;
  const result = root.querySelector('[data-testid=result]');
  return { select: root.querySelector('#fruit'), show: (value) => { result.textContent = value || 'no fruit'; } };
}

export function TomSelectPage(root) {
  const { select, show } = fruitPage(root, 'Order fruit (Tom Select)');
  // Filters as each key is typed (no refresh throttle): waiting for a filter the page defers is
  // the settle work's, not this fixture's.
  new TomSelect(select, { refreshThrottle: 0, onChange: show });
}

export function SelectizePage(root) {
  const { select, show } = fruitPage(root, 'Order fruit (selectize)');
  $(select).selectize({ onChange: show });
}

export function NumberFieldPage(root) {
  root.innerHTML = `<h1>Seats</h1>
    <label>Seats <input type="number" min="1" max="99" value="2" name="seats"></label>
    <output data-testid="result">2 seats: 24 €</output>`;
  const input = root.querySelector('input');
  const result = root.querySelector('[data-testid=result]');
  input.addEventListener('input', () => {
    const n = Number(input.value);
    result.textContent = input.value === '' ? 'no seats' : `${n} seats: ${n * 12} €`;
  });
}
