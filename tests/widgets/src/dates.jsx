// A date picker of MUI X (`@mui/x-date-pickers`, dayjs adapter). The desktop variant, so the
// page behaves the same whatever pointer the browser reports: a field, a "Choose date" button
// that opens a calendar in a popper; a day is chosen by clicking it, or by arrow keys and Enter
// in the calendar grid. The calendar opens on March 2026 (a reference date, not today), so
// every journey sees the same month.
import { useState } from 'react';
import dayjs from 'dayjs';
import { LocalizationProvider } from '@mui/x-date-pickers/LocalizationProvider';
import { AdapterDayjs } from '@mui/x-date-pickers/AdapterDayjs';
import { DesktopDatePicker } from '@mui/x-date-pickers/DesktopDatePicker';

const Result = ({ children }) => <output data-testid="result">{children}</output>;

export function DatePickerPage() {
  const [day, setDay] = useState(null);
  return (
    <LocalizationProvider dateAdapter={AdapterDayjs}>
      <h1>Delivery</h1>
      <DesktopDatePicker
        label="Delivery date"
        format="YYYY-MM-DD"
        referenceDate={dayjs('2026-03-09')}
        value={day}
        onChange={(v) => setDay(v)}
      />
      <Result>{day && day.isValid() ? day.format('YYYY-MM-DD') : 'no date'}</Result>
    </LocalizationProvider>
  );
}
