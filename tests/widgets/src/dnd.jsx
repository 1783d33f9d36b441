// A sortable list of dnd kit: items are dragged with the pointer (moved 5 px before the drag
// starts) or with the keyboard (Space, arrows, Space).
import { useState } from 'react';
import { DndContext, KeyboardSensor, PointerSensor, closestCenter, useSensor, useSensors } from '@dnd-kit/core';
import { SortableContext, arrayMove, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';

function Item({ id }) {
  const { attributes, listeners, setNodeRef, transform, transition } = useSortable({ id });
  const style = {
    transform: CSS.Transform.toString(transform), transition,
    padding: '10px 14px', margin: '6px 0', border: '1px solid #888', borderRadius: 4, background: 'white', width: 220,
  };
  return <li ref={setNodeRef} style={style} {...attributes} {...listeners}>{id}</li>;
}

export function SortablePage() {
  const [items, setItems] = useState(['Milk', 'Bread', 'Eggs', 'Butter']);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const onDragEnd = ({ active, over }) => {
    if (over && active.id !== over.id) {
      setItems((list) => arrayMove(list, list.indexOf(active.id), list.indexOf(over.id)));
    }
  };
  return (
    <div>
      <h1>Shopping list</h1>
      <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd}>
        <SortableContext items={items} strategy={verticalListSortingStrategy}>
          <ul style={{ listStyle: 'none', padding: 0 }} aria-label="Shopping list">
            {items.map((id) => <Item key={id} id={id} />)}
          </ul>
        </SortableContext>
      </DndContext>
      <output data-testid="result">{items.join(',')}</output>
    </div>
  );
}
